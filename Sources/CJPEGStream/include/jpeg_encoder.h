#ifndef RELAY_JPEG_ENCODER_H
#define RELAY_JPEG_ENCODER_H

#include <stddef.h>
#include <stdint.h>

/*
 * A JPEG encoder fed the image's own planes (raw data: Y, Cb, Cr, or grey) one strip (iMCU row)
 * at a time, writing the file to a descriptor as it goes: a rendition can be uploaded while
 * its lower rows are still being decoded. The settings are TurboJPEG's for the same call
 * (tjCompressFromYUVPlanes: jpeg_set_quality with baseline tables, the fast integer DCT below
 * quality 96, Huffman tables not optimized, JFIF unless asked not to).
 *
 * libjpeg's errors (which longjmp) end in -1 with the library's message, or the errno of a
 * failed write. After a failure only relay_jpeg_encoder_abort and _destroy may be called.
 */

typedef struct relay_jpeg_encoder relay_jpeg_encoder;

/* NULL when out of memory. */
relay_jpeg_encoder *relay_jpeg_encoder_create(void);
void relay_jpeg_encoder_destroy(relay_jpeg_encoder *encoder);
/* Drops the image under way (its file is the caller's to remove). */
void relay_jpeg_encoder_abort(relay_jpeg_encoder *encoder);

/* Starts an image of width × height written to fd: grey (components 1) or YCbCr with chroma
   at half size both ways (subsampled 1, 4:2:0) or full size (0, 4:4:4). Writes SOI and, with
   jfif, the JFIF header. 0, or -1. */
int relay_jpeg_encoder_start(
    relay_jpeg_encoder *encoder, int fd, int width, int height, int components, int subsampled, int quality, int jfif);
/* Writes one application segment (marker 0xE0–0xEF, or 0xFE), after start and before the
   first strip. 0, or -1. */
int relay_jpeg_encoder_write_marker(relay_jpeg_encoder *encoder, int marker, const uint8_t *body, unsigned length);
/* The rows of `component` each strip takes (16 or 8), and the plane sizes the image has. */
int relay_jpeg_encoder_strip_rows(const relay_jpeg_encoder *encoder, int component);
int relay_jpeg_encoder_plane_width(const relay_jpeg_encoder *encoder, int component);
int relay_jpeg_encoder_plane_height(const relay_jpeg_encoder *encoder, int component);
/* Encodes the next strip: rows[c] is its first row in component c's plane (`stride` bytes
   apart, plane_width wide), `available[c]` of them are the image's (fewer at the bottom: the
   last is repeated, as the last column is to the block edge). 0, or -1. */
int relay_jpeg_encoder_write_strip(
    relay_jpeg_encoder *encoder, const uint8_t *const *rows, const int *strides, const int *available);
/* Ends the image (EOI) and writes out what is buffered. 0, or -1. */
int relay_jpeg_encoder_finish(relay_jpeg_encoder *encoder);

/* Bytes written to the descriptor so far. */
uint64_t relay_jpeg_encoder_written(const relay_jpeg_encoder *encoder);
/* libjpeg's message, or the failed write's, for the last failure; and that write's errno (0 if
   the failure was libjpeg's). */
const char *relay_jpeg_encoder_message(const relay_jpeg_encoder *encoder);
int relay_jpeg_encoder_errno(const relay_jpeg_encoder *encoder);

#endif
