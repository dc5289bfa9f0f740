#ifndef RELAY_CJPEGSTREAM_H
#define RELAY_CJPEGSTREAM_H

/* libjpeg fed and drained strip by strip: a decoder fed as a photo arrives, an encoder writing
   a rendition as its rows are made. */
#include "jpeg_stream.h"
#include "jpeg_encoder.h"

#endif
