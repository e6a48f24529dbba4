// Number text as verifybench reads it everywhere: scenario files, planner settings
// (`planner:` maps, --planner) and numeric command-line options. One spelling per kind of
// value, so a value means the same number to every tool that reads the file:
//   integer: [+-]digits, no leading zero (YAML 1.1 and strtoll's base 0 read 010 as octal
//            8), no exponent, no fraction ("2e0", "1e2" and "2." are not integers);
//   number:  [+-] digits [. digits] [e [+-] digits], or [+-] . digits [exponent], finite
//            (no nan, inf, hex or a value that overflows a double).
#pragma once
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

namespace vb {

inline bool decimal_integer_syntax(std::string_view s, bool signed_ok) {
  std::size_t i = 0;
  if (signed_ok && i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  if (i == s.size()) return false;
  if (s[i] == '0' && i + 1 < s.size()) return false;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
  }
  return true;
}

inline bool decimal_number_syntax(std::string_view s) {
  std::size_t i = 0;
  auto digits = [&] {
    const std::size_t from = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    return i - from;
  };
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  const std::size_t int_begin = i;
  const std::size_t int_digits = digits();
  if (int_digits > 1 && s[int_begin] == '0') return false;
  std::size_t frac_digits = 0;
  if (i < s.size() && s[i] == '.') {
    ++i;
    frac_digits = digits();
  }
  if (int_digits + frac_digits == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (digits() == 0) return false;
  }
  return i == s.size();
}

// The integer `s` spells (decimal_integer_syntax), or nothing when it is not one or does not
// fit an int64.
inline std::optional<std::int64_t> parse_decimal_integer(std::string_view s, bool signed_ok) {
  if (!decimal_integer_syntax(s, signed_ok)) return std::nullopt;
  const char* b = s.data();
  const char* e = s.data() + s.size();
  if (*b == '+') ++b;
  std::int64_t v = 0;
  const auto [ptr, ec] = std::from_chars(b, e, v);
  if (ptr != e || ec != std::errc()) return std::nullopt;
  return v;
}

// The finite number `s` spells (decimal_number_syntax), or nothing. A subnormal result is a
// real value (strtod's ERANGE with a finite result); an infinite one does not fit a double.
inline std::optional<double> parse_decimal_number(std::string_view s) {
  if (!decimal_number_syntax(s)) return std::nullopt;
  const std::string text(s);
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

}  // namespace vb
