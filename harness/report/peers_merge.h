// `verifybench run --peers FILE`: the peer rows `python -m verifybench.peers` wrote (one
// ExecutorResult per case and peer, in result.json's form) put into this run's case results
// beside production, so every writer (summary.md, results.csv, roofline.svg, result.json)
// shows them. A peer row timed cold-L2 next to a production row timed cold-L2 in this run
// gets the speedup in its detail.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "harness/record/result.h"

namespace vb {

struct PeerRows {
  std::string path;
  std::vector<std::pair<std::string, std::vector<ExecutorResult>>> cases;  // case name -> its peer rows
};

// Reads a verifybench-peers/1 file. Throws std::runtime_error naming the file and what was
// wrong (unreadable, not JSON, another format, a malformed row).
PeerRows read_peer_rows(const std::string& path);

struct PeerMergeSummary {
  int rows_merged = 0;
  std::vector<std::string> cases_not_in_run;  // peer-file cases this run has no result for
};

// Appends each case's peer rows to the case result of that name (after its own executors).
PeerMergeSummary merge_peer_rows(const PeerRows& peers, std::vector<CaseResult>* results);

}  // namespace vb
