#ifndef RELAY_JPEG_STREAM_H
#define RELAY_JPEG_STREAM_H

#include <stddef.h>
#include <stdint.h>

/*
 * A JPEG decoder fed as the file arrives (libjpeg's suspending data source), decoding at a
 * DCT-domain scale straight to the image's own planes (raw data: Y, Cb, Cr, or grey), one strip
 * (iMCU row) at a time.
 *
 * Each call either makes progress, asks for more input, or fails; a call that asked for input
 * is repeated, with the same arguments, once more bytes were appended. libjpeg's errors (which
 * longjmp) and its warnings (corrupt or cut-off data) end in RELAY_JPEG_FAILED with the library's
 * own message. After a failure only relay_jpeg_stream_reset and _destroy may be called.
 * One stream per thread; streams share nothing.
 */

typedef struct relay_jpeg_stream relay_jpeg_stream;

typedef enum {
    /* The call did what it was asked. */
    RELAY_JPEG_READY = 0,
    /* Append more bytes (or end the input) and repeat the call. */
    RELAY_JPEG_NEEDS_INPUT = 1,
    /* relay_jpeg_stream_read_strip: every row is out. */
    RELAY_JPEG_DONE = 2,
    /* See relay_jpeg_stream_message. */
    RELAY_JPEG_FAILED = 3,
} relay_jpeg_status;

typedef struct {
    int width;
    int height;
    /* 1 (grey) or 3 (YCbCr); other colour spaces fail at the header. */
    int components;
    /* Whether the pixels come in several scans (progressive): then no row is out before the
       last scan arrived. */
    int multiple_scans;
} relay_jpeg_header;

typedef struct {
    /* Each component's plane at the chosen scale, in pixels (packed rows). */
    int width[3];
    int height[3];
} relay_jpeg_layout;

/* NULL when out of memory. */
relay_jpeg_stream *relay_jpeg_stream_create(void);
void relay_jpeg_stream_destroy(relay_jpeg_stream *stream);
/* Forgets the image and its input: the stream starts again with the next byte appended. */
void relay_jpeg_stream_reset(relay_jpeg_stream *stream);

/* Appends the next bytes of the file; 0, or -1 when out of memory. */
int relay_jpeg_stream_append(relay_jpeg_stream *stream, const uint8_t *bytes, size_t count);
/* Says that no byte follows: a decoder still wanting some then fails ("Premature end"). */
void relay_jpeg_stream_end_input(relay_jpeg_stream *stream);
/* The number of appended bytes the decoder has not consumed yet (for tests and bounds). */
size_t relay_jpeg_stream_buffered(const relay_jpeg_stream *stream);

relay_jpeg_status relay_jpeg_stream_read_header(relay_jpeg_stream *stream, relay_jpeg_header *header);
/* Chooses the scale num/denom (N/8) and starts decoding; for a multi-scan image this takes in
   every scan, so it asks for input until the last one arrived. */
relay_jpeg_status relay_jpeg_stream_start(relay_jpeg_stream *stream, unsigned num, unsigned denom, relay_jpeg_layout *layout);
/* Decodes the next strip into planes[c] (width[c] × height[c] bytes each, packed), at the rows
   that follow the ones already written. READY: a strip is out; DONE: all of them are. */
relay_jpeg_status relay_jpeg_stream_read_strip(relay_jpeg_stream *stream, uint8_t *const *planes);
/* Reads on to the end of the image (EOI), checking what remains. */
relay_jpeg_status relay_jpeg_stream_finish(relay_jpeg_stream *stream);

/* The rows of each plane written so far. */
int relay_jpeg_stream_rows(const relay_jpeg_stream *stream, int component);
/* libjpeg's message for the last failure. */
const char *relay_jpeg_stream_message(const relay_jpeg_stream *stream);

#endif
