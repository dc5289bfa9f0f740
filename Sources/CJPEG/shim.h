#ifndef RELAY_CJPEG_SHIM_H
#define RELAY_CJPEG_SHIM_H

/*
 * libjpeg-turbo's libjpeg API (Debian libjpeg62-turbo-dev). Only CJPEGStream uses it, from C:
 * its errors longjmp, which Swift cannot catch. This module carries the package's flags.
 */

#include <stdio.h>
#include <jpeglib.h>

#endif
