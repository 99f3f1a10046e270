/// @file workbook.cuh
/// @brief The one header a chapter includes: the shared harness of the workbook.
///
/// - wb_options.h: the command line (wb::Spec, wb::Options, wb::parse_or_exit)
/// - wb_reference.h: the seeded input and the exact CPU references
/// - wb_report.h: statistics, the human table and the CSV (the command-line contract in
///   docs/pages/measuring.md)
/// - wb_checks.h: the guards around every device array, the check messages, fitting N
/// - wb_cuda.cuh: CUDA error checks, the device, buffers, the L2 flush and wb::Bench
///
/// A chapter's `main` is: parse, open the device, make the input and its reference,
/// run each kernel through wb::Bench::run, and return wb::Bench::finish().
#pragma once

#include "wb_checks.h"
#include "wb_cuda.cuh"
#include "wb_options.h"
#include "wb_reference.h"
#include "wb_report.h"
