#include "harness/record/launch_record.h"

#include <sstream>

namespace vb {

const char* to_string(PageTableKind kind) {
  return kind == PageTableKind::kBlockTable ? "block-table" : "token-indices";
}

namespace {

// planner_config_overrides' "key=value key=value" as pairs (keys and values hold no spaces).
std::vector<std::pair<std::string, std::string>> planner_settings_of(const PlannerConfig& config) {
  std::vector<std::pair<std::string, std::string>> settings;
  std::istringstream words(planner_config_overrides(config));
  for (std::string word; words >> word;) {
    const std::size_t eq = word.find('=');
    settings.emplace_back(word.substr(0, eq), eq == std::string::npos ? "" : word.substr(eq + 1));
  }
  return settings;
}

}  // namespace

LaunchRecord launch_record(const LaunchPlan& plan, PageTableKind page_kind, const PlannerConfig& config) {
  const SplitSchedule& s = plan.schedule;
  LaunchRecord r;
  r.engine = to_string(s.path);
  r.instance = to_string(plan.instance);
  r.page_table = to_string(page_kind);
  r.math = to_string(plan.math);
  r.grid = {plan.main_grid.x, plan.main_grid.y, plan.main_grid.z};
  r.threads = plan.main_threads;
  r.pipeline_stages = plan.pipeline_stages;
  r.smem_bytes = plan.smem_bytes;
  r.m_tiles = s.m_tiles;
  r.splits = s.num_splits;
  r.tiles_per_split = s.tiles_per_split;
  r.token_split = s.token_split;
  r.tile_balanced = s.tile_balanced;
  r.balanced_slots = s.balanced_slots;
  if (s.num_splits > 1) {
    r.combine_lanes = plan.combine_lanes;
    r.combine_loads_per_lane = plan.combine_loads_per_lane;
    r.combine_grid = {plan.combine_grid.x, plan.combine_grid.y, plan.combine_grid.z};
  }
  r.planner_settings = planner_settings_of(config);
  r.summary = describe(plan);
  return r;
}

}  // namespace vb
