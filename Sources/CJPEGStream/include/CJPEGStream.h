#ifndef RELAY_CJPEGSTREAM_H
#define RELAY_CJPEGSTREAM_H

/* libjpeg fed and drained strip by strip: a decoder fed as a photo arrives, an encoder writing
   a rendition as its rows are made, and a full-size rectangle decoded without the rest. */
#include "jpeg_stream.h"
#include "jpeg_encoder.h"
#include "jpeg_crop.h"

#endif
