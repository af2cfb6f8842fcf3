// The thread pool of `dglsim suite`, `dglsim sweep` and `dglsim chaos`: independent runs, each by its index, on a
// few threads, with a call as each one finishes (for a progress line).
//
// Runs share nothing but immutable constants (suite.h), so which thread takes which index cannot
// change a result; the caller keeps results by index, and they come back in index order whatever
// order the runs finish in.
#pragma once

#include <cstddef>
#include <functional>

namespace harness {

// Calls run(i) for every i in [0, count) on `jobs` threads (0 = one per hardware thread; never
// more than count), this thread among them; a thread that cannot be started leaves its share to the
// others. finished(i, done) follows each run(i), one call at a time, in finishing order (`done`
// runs finished so far); an exception from it is swallowed: progress is a courtesy and must not
// lose results. run must not throw.
void RunInParallel(std::size_t count, std::size_t jobs, const std::function<void(std::size_t i)>& run,
                   const std::function<void(std::size_t i, std::size_t done)>& finished);

}  // namespace harness
