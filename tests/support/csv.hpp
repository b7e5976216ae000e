/// \file tests/support/csv.hpp
/// A tiny CSV reader for the reference tables in tests/data (written by
/// tests/reference/gen_spectral_reference.py): a header line of column names, then rows of
/// comma-separated fields, no quoting. Lines starting with '#' are comments.
#ifndef NSC_TESTS_SUPPORT_CSV_HPP
#define NSC_TESTS_SUPPORT_CSV_HPP

#include <cerrno>
#include <cstddef>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace nsc_test {

/// Absolute path of a file in tests/data.
inline std::string data_path(std::string_view name) {
  return std::string(NSC_TEST_DATA_DIR) + "/" + std::string(name);
}

class csv_table {
public:
  explicit csv_table(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("csv_table: cannot open " + path);
    std::string line;
    bool have_header = false;
    while (std::getline(in, line)) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (line.empty() || line.front() == '#') continue;
      auto fields = split(line);
      if (!have_header) {
        names_ = std::move(fields);
        have_header = true;
        continue;
      }
      if (fields.size() != names_.size())
        throw std::runtime_error("csv_table: wrong number of fields in " + path + ": " + line);
      rows_.push_back(std::move(fields));
    }
    if (!have_header) throw std::runtime_error("csv_table: empty file " + path);
  }

  std::size_t size() const { return rows_.size(); }

  /// Index of a column by name; throws if absent.
  std::size_t column(std::string_view name) const {
    for (std::size_t i = 0; i < names_.size(); ++i)
      if (names_[i] == name) return i;
    throw std::runtime_error("csv_table: no column " + std::string(name));
  }

  const std::string& text(std::size_t row, std::size_t col) const { return rows_.at(row).at(col); }
  const std::string& text(std::size_t row, std::string_view col) const {
    return text(row, column(col));
  }

  /// The field as a double (strtod: correctly rounded, "inf"/"-inf" accepted).
  double number(std::size_t row, std::size_t col) const { return parse<double>(text(row, col)); }
  double number(std::size_t row, std::string_view col) const { return number(row, column(col)); }
  /// The field as a long double (strtold).
  long double long_number(std::size_t row, std::string_view col) const {
    return parse<long double>(text(row, column(col)));
  }

private:
  static std::vector<std::string> split(const std::string& line) {
    std::vector<std::string> out;
    std::size_t start = 0;
    for (;;) {
      const auto comma = line.find(',', start);
      out.push_back(line.substr(start, comma - start));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    return out;
  }

  template <class T>
  static T parse(const std::string& s) {
    const char* begin = s.c_str();
    char* end = nullptr;
    errno = 0;
    T v;
    if constexpr (std::is_same_v<T, double>)
      v = std::strtod(begin, &end);
    else
      v = std::strtold(begin, &end);
    if (end == begin || *end != '\0')
      throw std::runtime_error("csv_table: not a number: '" + s + "'");
    // ERANGE on underflow is fine (subnormal or zero results are what the text says).
    return v;
  }

  std::vector<std::string> names_;
  std::vector<std::vector<std::string>> rows_;
};

} // namespace nsc_test

#endif // NSC_TESTS_SUPPORT_CSV_HPP
