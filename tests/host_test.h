// The check of the host test programs (test_common.cpp, test_float.cpp): EXPECT(cond) counts
// the condition as passed or failed, and prints a failed one with its line; a program ends
// with host_test_summary(), which prints the counts and gives its exit status.
#pragma once

#include <cstdio>

static int passed = 0, failed = 0;

#define EXPECT(cond)                                                    \
  do {                                                                  \
    if (cond) {                                                         \
      ++passed;                                                         \
    } else {                                                            \
      ++failed;                                                         \
      std::printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);       \
    }                                                                   \
  } while (0)

/// Print the counts; 0 when nothing failed (and something was checked), else 1.
static inline int host_test_summary() {
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 && passed > 0 ? 0 : 1;
}
