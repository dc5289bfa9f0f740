#ifndef RELAY_BUILD_INFO_H
#define RELAY_BUILD_INFO_H

/// The commit relay was built from (`scripts/package.sh` passes it with -Xcc -DRELAY_COMMIT=...),
/// or "" for a build that did not say.
const char *relay_build_commit(void);

#endif
