#ifndef RELAY_CTURBOJPEG_SHIM_H
#define RELAY_CTURBOJPEG_SHIM_H

/*
 * libjpeg-turbo's TurboJPEG API (Debian libturbojpeg0-dev): scaled decoding to YUV planes and
 * encoding from them, without libjpeg's setjmp error handling, which Swift cannot use.
 */

#include <turbojpeg.h>

#endif
