#ifndef RELAY_CGPHOTO2_SHIM_H
#define RELAY_CGPHOTO2_SHIM_H

/*
 * libgphoto2 (Debian libgphoto2-dev, found through pkg-config) as Swift sees it. The API has no
 * variadic entry point relay needs, so Swift calls it directly and no wrapper is compiled.
 */

#include <gphoto2/gphoto2.h>

#endif
