#include "harness/report/report_svg.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "harness/measure/traffic_model.h"

namespace vb {
namespace {

std::string escape_xml(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

struct Point {
  double x, y;
  std::string label, executor;
  bool sol;
};

constexpr int kWidth = 1120, kHeight = 640;
constexpr int kKeyRowHeight = 14;  // the numbered case key under the plot
constexpr std::size_t kKeyMaxChars = 64;
constexpr int kLeft = 80, kRight = 360, kTop = 50, kBottom = 60;  // margins; the legend right

// Executors outside the registry (peer rows) are grey.
std::string colour_for(const std::string& executor) {
  const ExecutorInfo* info = find_executor_info(executor);
  return info != nullptr ? info->plot.colour : "#7f7f7f";
}

bool numbered(const std::string& executor) {
  const ExecutorInfo* info = find_executor_info(executor);
  return info != nullptr && info->plot.numbered;
}

}  // namespace

std::string format_roofline_svg(const std::optional<Ceilings>& ceilings,
                                const std::vector<CaseResult>& cases, const std::string& title) {
  std::vector<Point> points;
  for (const CaseResult& c : cases) {
    if (!c.traffic) continue;
    for (const ExecutorResult& e : c.executors) {
      if (!e.achieved || e.achieved->tflops <= 0) continue;
      points.push_back({c.traffic->intensity(), e.achieved->tflops, c.case_name, e.executor,
                        e.achieved->speed_of_light});
    }
  }
  // Axis ranges in decades covering the points and the ridge points.
  double xmin = 1, xmax = 1000, ymin = 0.1, ymax = 1000;
  for (const Point& p : points) {
    xmin = std::min(xmin, p.x);
    xmax = std::max(xmax, p.x);
    ymin = std::min(ymin, p.y);
    ymax = std::max(ymax, p.y);
  }
  if (ceilings) ymax = std::max(ymax, tensor_ceiling_tflops(*ceilings));
  const double lx0 = std::floor(std::log10(xmin)), lx1 = std::ceil(std::log10(xmax));
  const double ly0 = std::floor(std::log10(ymin)), ly1 = std::ceil(std::log10(ymax * 1.5));
  const double pw = kWidth - kLeft - kRight, ph = kHeight - kTop - kBottom;
  auto X = [&](double x) { return kLeft + (std::log10(x) - lx0) / (lx1 - lx0) * pw; };
  auto Y = [&](double y) { return kTop + ph - (std::log10(y) - ly0) / (ly1 - ly0) * ph; };

  // The numbered executor's points (production's) carry a number; the key under the plot
  // names each case once, so dozens of cases stay readable (full names next to the points
  // overlapped).
  std::vector<std::string> key;
  for (const Point& p : points) {
    if (numbered(p.executor)) key.push_back(p.label);
  }
  const int key_rows = static_cast<int>((key.size() + 1) / 2);
  const int total_height = kHeight + (key.empty() ? 0 : 10 + key_rows * kKeyRowHeight);

  std::string s = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" "
      "font-family=\"sans-serif\" font-size=\"12\">\n"
      "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      "<text x=\"{}\" y=\"28\" font-size=\"16\" font-weight=\"bold\">{}</text>\n",
      kWidth, total_height, kWidth, total_height, kLeft, escape_xml(title));
  // grid and decade labels
  for (double d = lx0; d <= lx1; d += 1) {
    const double x = X(std::pow(10, d));
    s += fmt::format("<line x1=\"{:.1f}\" y1=\"{}\" x2=\"{:.1f}\" y2=\"{}\" stroke=\"#ddd\"/>\n", x, kTop, x, kTop + ph);
    s += fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{:g}</text>\n", x, kTop + ph + 18, std::pow(10, d));
  }
  for (double d = ly0; d <= ly1; d += 1) {
    const double y = Y(std::pow(10, d));
    s += fmt::format("<line x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\" stroke=\"#ddd\"/>\n", kLeft, y, kLeft + pw, y);
    s += fmt::format("<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{:g}</text>\n", kLeft - 6, y + 4, std::pow(10, d));
  }
  s += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"black\"/>\n", kLeft, kTop, pw, ph);
  s += fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">arithmetic intensity (FLOP / algorithmic byte)</text>\n",
                   kLeft + pw / 2, kHeight - 15);
  s += fmt::format("<text x=\"20\" y=\"{:.1f}\" text-anchor=\"middle\" transform=\"rotate(-90 20 {:.1f})\">TFLOP/s</text>\n",
                   kTop + ph / 2, kTop + ph / 2);

  if (ceilings) {
    // Memory roofs: y = bw * x / 1e3 (GB/s * FLOP/B -> TFLOP/s), clipped at the tensor roof
    // (the device's best tensor-core ceiling). `label_dy` moves a roof's label off its
    // neighbour's (the two memory roofs nearly meet).
    const double tensor = tensor_ceiling_tflops(*ceilings);
    auto roof = [&](double gbps, const char* colour, const char* dash, const std::string& name, double label_dy) {
      if (gbps <= 0) return;
      const double xa = std::pow(10, lx0), ridge = tensor * 1e3 / gbps;
      const double xb = std::min(std::pow(10, lx1), ridge);
      s += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" stroke-width=\"2\" stroke-dasharray=\"{}\"/>\n",
                       X(xa), Y(std::max(gbps * xa / 1e3, std::pow(10, ly0))), X(xb), Y(gbps * xb / 1e3), colour, dash);
      s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" fill=\"{}\" transform=\"rotate(-30 {:.1f} {:.1f})\">{}</text>\n",
                       X(xb) - 190, Y(gbps * xb / 1e3) + 70 + label_dy, colour, X(xb) - 190,
                       Y(gbps * xb / 1e3) + 70 + label_dy, escape_xml(name));
    };
    roof(ceilings->row_read_contiguous_gbps, "#444", "0",
         fmt::format("1152-byte rows in order {:.0f} GB/s", ceilings->row_read_contiguous_gbps), -14.0);
    roof(ceilings->row_read_shuffled_gbps, "#888", "6 4",
         fmt::format("1152-byte rows page 1 shuffled {:.0f} GB/s", ceilings->row_read_shuffled_gbps), 14.0);
    // fp8 cases' roofs (576-byte rows), where the run measured them.
    roof(ceilings->row576_read_contiguous_gbps, "#2a6f97", "0",
         fmt::format("576-byte rows in order {:.0f} GB/s", ceilings->row576_read_contiguous_gbps), -42.0);
    roof(ceilings->row576_read_shuffled_gbps, "#61a5c2", "6 4",
         fmt::format("576-byte rows page 1 shuffled {:.0f} GB/s", ceilings->row576_read_shuffled_gbps), 42.0);
    // Compute roofs: the tensor roof solid from its ridge; the mma.sync ceiling dashed under
    // it where wgmma is faster (the roof the mma.sync rows are held to).
    auto compute_roof = [&](double tflops, const char* dash, const std::string& name) {
      const double yc = Y(tflops);
      const double ridge = tflops * 1e3 / std::max(1.0, ceilings->row_read_contiguous_gbps);
      const std::string dashes = *dash ? fmt::format(" stroke-dasharray=\"{}\"", dash) : "";
      s += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#444\" stroke-width=\"2\"{}/>\n",
                       X(std::max(ridge, std::pow(10, lx0))), yc, kLeft + pw, yc, dashes);
      s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n", kLeft + pw - 4, yc - 6,
                       escape_xml(name));
    };
    const bool wgmma_roof = ceilings->wgmma_bf16_tflops > ceilings->mma_bf16_tflops;
    compute_roof(tensor, "",
                 fmt::format("{} bf16 {:.0f} TFLOP/s", wgmma_roof ? "wgmma" : "mma.sync", tensor));
    if (wgmma_roof) {
      compute_roof(ceilings->mma_bf16_tflops, "6 4", fmt::format("mma.sync bf16 {:.0f} TFLOP/s", ceilings->mma_bf16_tflops));
    }
    // sm_120's bf16 rate as this run emulates it: the roof production/sm120-emu's points are
    // held to.
    if (ceilings->sm120_emulated_bf16_tflops > 0) {
      compute_roof(ceilings->sm120_emulated_bf16_tflops, "2 4",
                   fmt::format("sm_120 emulated bf16 {:.0f} TFLOP/s", ceilings->sm120_emulated_bf16_tflops));
    }
  } else {
    s += fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\" fill=\"#a00\">no ceilings measured in this run</text>\n",
                     kLeft + pw / 2, kTop + 20);
  }
  if (points.empty()) {
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\" fill=\"#a00\">no timed cases (run with --time on a GPU)</text>\n",
                     kLeft + pw / 2, kTop + ph / 2);
  }
  int number = 0;
  for (const Point& p : points) {
    const double x = X(p.x), y = Y(p.y);
    s += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"4\" fill=\"{}\"{}><title>{} ({}): {:.3g} TFLOP/s at {:.3g} FLOP/B</title></circle>\n",
                     x, y, colour_for(p.executor), p.sol ? " stroke=\"red\" stroke-width=\"2\"" : "",
                     escape_xml(p.label), escape_xml(p.executor), p.y, p.x);
    if (numbered(p.executor)) {
      s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"10\">{}{}</text>\n", x + 6, y - 4,
                       ++number, p.sol ? " (above ceiling!)" : "");
    }
  }
  // numbered key of the production points, two columns under the plot
  for (std::size_t i = 0; i < key.size(); ++i) {
    const int column = static_cast<int>(i) / std::max(1, key_rows);
    const int row = static_cast<int>(i) % std::max(1, key_rows);
    std::string name = key[i];
    if (name.size() > kKeyMaxChars) name = name.substr(0, kKeyMaxChars - 3) + "...";
    s += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"10\">{:>3}  {}</text>\n",
                     kLeft + column * (kWidth - kLeft) / 2, kHeight + 10 + row * kKeyRowHeight, i + 1,
                     escape_xml(name));
  }
  // legend
  int ly = kTop + 10;
  std::string numbered_names;
  for (const ExecutorInfo& e : executor_registry()) {
    s += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"5\" fill=\"{}\"/><text x=\"{}\" y=\"{}\">{}</text>\n",
                     kLeft + pw + 20, ly, e.plot.colour, kLeft + pw + 30, ly + 4, escape_xml(e.name));
    ly += 20;
    if (e.plot.numbered) numbered_names += (numbered_names.empty() ? "" : ", ") + e.name;
  }
  s += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"10\">numbers: {} (key below)</text>\n", kLeft + pw + 14,
                   ly + 6, escape_xml(numbered_names));
  s += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"10\">red ring: above a ceiling</text>\n", kLeft + pw + 14, ly + 22);
  s += "</svg>\n";
  return s;
}

}  // namespace vb
