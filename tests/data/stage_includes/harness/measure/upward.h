// A stand-in stage file for the include check's own test: measure/ reading report/ runs back
// up the order, so scripts/check_stage_includes.sh must name this file and this include.
#pragma once
#include "harness/measure/upward_peer.h"
#include "harness/report/report_json.h"
