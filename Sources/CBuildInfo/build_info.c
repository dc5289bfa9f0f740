#include "build_info.h"

// Set by the build (scripts/package.sh: -Xcc -DRELAY_COMMIT="\"abc123\""); a C define because
// SwiftPM has no way to hand a value to Swift code at build time.
#ifndef RELAY_COMMIT
#define RELAY_COMMIT ""
#endif

const char *relay_build_commit(void) { return RELAY_COMMIT; }
