/// \file nsc/detail/checked.hpp
/// Checked integer arithmetic for every count, cost, size and offset computed from input
/// (parameters, MACs, bytes, table sizes, file offsets). An overflow is a std::domain_error
/// naming the function, the quantity and both operands, never a wrapped number:
///   "nsc::count: params_total overflows the signed 64-bit range (1000000000000 * 1000000000000)".
#ifndef NSC_DETAIL_CHECKED_HPP
#define NSC_DETAIL_CHECKED_HPP

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

namespace nsc::detail {

/// Throws std::domain_error("<function>: <quantity> overflows the <type> range (a <op> b)").
template <class Int>
[[noreturn]] void throw_overflow(std::string_view function, std::string_view quantity, char op,
                                 Int a, Int b) {
  std::string msg;
  msg.append(function).append(": ").append(quantity).append(" overflows the ");
  msg.append(std::is_signed_v<Int> ? "signed " : "unsigned ");
  msg.append(std::to_string(sizeof(Int) * 8)).append("-bit range (");
  msg.append(std::to_string(a)).append(" ").append(1, op).append(" ").append(std::to_string(b));
  msg.append(")");
  throw std::domain_error(msg);
}

/// a + b, or a domain error naming `quantity`.
template <class Int>
  requires std::is_integral_v<Int>
[[nodiscard]] constexpr Int checked_add(Int a, Int b, std::string_view function,
                                        std::string_view quantity) {
  Int r{};
  if (__builtin_add_overflow(a, b, &r)) throw_overflow(function, quantity, '+', a, b);
  return r;
}

/// a - b, or a domain error naming `quantity`.
template <class Int>
  requires std::is_integral_v<Int>
[[nodiscard]] constexpr Int checked_sub(Int a, Int b, std::string_view function,
                                        std::string_view quantity) {
  Int r{};
  if (__builtin_sub_overflow(a, b, &r)) throw_overflow(function, quantity, '-', a, b);
  return r;
}

/// a * b, or a domain error naming `quantity`.
template <class Int>
  requires std::is_integral_v<Int>
[[nodiscard]] constexpr Int checked_mul(Int a, Int b, std::string_view function,
                                        std::string_view quantity) {
  Int r{};
  if (__builtin_mul_overflow(a, b, &r)) throw_overflow(function, quantity, '*', a, b);
  return r;
}

/// An accumulator that checks every addition: `checked_sum<std::int64_t> s{"fn", "params"};
/// s += x; s.value()`.
template <class Int>
  requires std::is_integral_v<Int>
class checked_sum {
public:
  constexpr checked_sum(std::string_view function, std::string_view quantity, Int start = 0)
      : function_(function), quantity_(quantity), value_(start) {}
  constexpr checked_sum& operator+=(Int x) {
    value_ = checked_add(value_, x, function_, quantity_);
    return *this;
  }
  /// Adds a * b.
  constexpr checked_sum& add_product(Int a, Int b) {
    return *this += checked_mul(a, b, function_, quantity_);
  }
  [[nodiscard]] constexpr Int value() const noexcept { return value_; }

private:
  std::string_view function_;
  std::string_view quantity_;
  Int value_;
};

} // namespace nsc::detail

#endif // NSC_DETAIL_CHECKED_HPP
