//===- Json.h - JSON numbers and strings for the runtime's logs -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// libdsmprt writes strict JSON (the monitor's log lines, profiles) without
// LLVM's JSON library, which it must not link.
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_RUNTIME_LIB_JSON_H
#define DSMP_RUNTIME_LIB_JSON_H

#include <cmath>
#include <cstdio>
#include <string>

namespace dsmprt {

/// A JSON number, or null for what JSON cannot say (inf, NaN).
inline std::string jsonNumber(double v) {
  if (!std::isfinite(v))
    return "null";
  char text[32];
  std::snprintf(text, sizeof text, "%.9g", v);
  return text;
}

/// A JSON whole number (a count too large for %.9g's digits: FLOPs).
inline std::string jsonCount(double v) {
  if (!std::isfinite(v) || v < 0 || v > 9.2e18)
    return jsonNumber(v);
  char text[32];
  std::snprintf(text, sizeof text, "%.0f", v);
  return text;
}

/// A JSON string: quotes, backslashes and control characters escaped
/// (names come from ONNX files).
inline std::string jsonString(const std::string &s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\')
      out += '\\', out += static_cast<char>(c);
    else if (c < 0x20) {
      char esc[8];
      std::snprintf(esc, sizeof esc, "\\u%04x", c);
      out += esc;
    } else
      out += static_cast<char>(c);
  }
  return out + "\"";
}

} // namespace dsmprt

#endif // DSMP_RUNTIME_LIB_JSON_H
