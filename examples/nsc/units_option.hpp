// The units option transform of nsc design / search / score: a quantity with units
// (nsc/io/units.hpp) handed to a numeric CLI11 option as its plain number.
#ifndef NSC_EXAMPLES_UNITS_OPTION_HPP
#define NSC_EXAMPLES_UNITS_OPTION_HPP

#include <CLI/CLI.hpp>
#include <nsc/io/units.hpp>

#include <cstdio>
#include <string>

namespace nsc_cli {

/// A CLI11 transform that reads a quantity with units (nsc/io/units.hpp: 24GiB, 8B, 32k, 32Ki)
/// and hands the option its plain number; a percentage is refused (no reference here). Errors
/// name the flag and the accepted forms.
inline CLI::Validator units(nsc::io::quantity_kind kind, std::string flag) {
  return CLI::Validator(
      [kind, flag](std::string& text) -> std::string {
        try {
          const nsc::io::quantity q = nsc::io::parse_quantity(text, kind, flag);
          if (q.relative)
            return flag + ": a percentage needs a reference model (nsc prune has one); write " +
                   std::string(nsc::io::accepted_forms(kind)).substr(0, std::string(nsc::io::accepted_forms(kind)).find(", or"));
          char buf[64];
          std::snprintf(buf, sizeof buf, "%.17g", q.value);
          text = buf;
          return std::string();
        } catch (const std::invalid_argument& e) {
          return e.what();
        }
      },
      "", "units");
}

} // namespace nsc_cli

#endif
