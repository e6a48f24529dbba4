// The shapes the planner (verifybench/planner.h) can plan. Its arithmetic is 32-bit (tile
// counts, grids, split sizes): a shape is planned only when its query rows (batch * tree_size *
// num_heads) and every KV length are at most kMaxPlannedCount, which leaves room for the
// roundings up to whole tiles and splits. plan_split_schedule and plan_split_schedule_for_path
// throw std::invalid_argument with planner_shape_error's text for any other shape;
// make_launch_plan and make_launch_plan_for_path return it as an invalid LaunchPlan.
#pragma once
#include <string>

namespace vb {

inline constexpr int kMaxPlannedCount = 1 << 30;
// "" when the planner can plan this shape, else why not, naming the field ("batch * tree_size *
// num_heads = 1 * 1 * 2147483647 query rows; allowed: ..."). kv_lens: nullptr or batch entries.
std::string planner_shape_error(int batch, int tree_size, int num_heads, int max_kv_len, const int* kv_lens);

}  // namespace vb
