#ifndef RELAY_JPEG_CROP_H
#define RELAY_JPEG_CROP_H

#include <stddef.h>
#include <stdint.h>

/*
 * A rectangle of a JPEG at full size, without decoding the rest of the photo: libjpeg-turbo
 * skips the rows above it (jpeg_skip_scanlines: their entropy-coded data is only read, since
 * Huffman data has no index, never transformed), decodes only the block columns under it
 * (jpeg_crop_scanline), and reading stops after its last row. The loupe's 100 % view of a
 * 45-megapixel photo costs a fraction of a whole decode.
 *
 * The rectangle comes out as full-size planes (Y, Cb, Cr upsampled, no colour conversion; or
 * grey), each width × height bytes, packed. The file is read with pread from `fd`, so the
 * descriptor's offset is neither used nor moved. libjpeg's errors and warnings (corrupt or
 * cut-off data) end in -1 with the library's message in `message`.
 */

/* The image's size and components (1 or 3), from its header alone. 0, or -1. */
int relay_jpeg_crop_header(int fd, int *width, int *height, int *components, char *message, size_t message_size);

/* Decodes the rectangle at (left, top), width × height, inside the image, into planes[0..2]
   (planes[1] and [2] are left untouched for a grey image, whose `components` is 1). 0, or -1. */
int relay_jpeg_crop(
    int fd, int left, int top, int width, int height, uint8_t *const *planes, int *components, char *message, size_t message_size);

#endif
