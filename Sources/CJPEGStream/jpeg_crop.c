#include "jpeg_crop.h"

#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jpeglib.h>
#include <jerror.h>

#define RELAY_CROP_READ 65536

/* Everything a crop needs, on the heap: nothing the longjmp could leave stale on the stack. */
struct crop {
    struct jpeg_decompress_struct cinfo;
    struct jpeg_error_mgr errors;
    struct jpeg_source_mgr source;
    jmp_buf failure;
    char message[JMSG_LENGTH_MAX];
    int created;
    int fd;
    off_t offset;
    JOCTET buffer[RELAY_CROP_READ];
    JSAMPLE *row;
};

static const JOCTET fake_eoi[2] = {0xFF, JPEG_EOI};

static void fail_now(j_common_ptr cinfo) {
    struct crop *crop = (struct crop *)cinfo->client_data;
    if (crop->message[0] == 0) (*cinfo->err->format_message)(cinfo, crop->message);
    longjmp(crop->failure, 1);
}

/* A warning is corrupt or missing data: the loupe must not show grey where the photo is damaged. */
static void on_message(j_common_ptr cinfo, int level) {
    if (level < 0) fail_now(cinfo);
}

static void source_init(j_decompress_ptr cinfo) { (void)cinfo; }

static boolean source_fill(j_decompress_ptr cinfo) {
    struct crop *crop = (struct crop *)cinfo->client_data;
    ssize_t count;
    do {
        count = pread(crop->fd, crop->buffer, RELAY_CROP_READ, crop->offset);
    } while (count < 0 && errno == EINTR);
    if (count < 0) {
        snprintf(crop->message, sizeof(crop->message), "read: %s", strerror(errno));
        fail_now((j_common_ptr)cinfo);
    }
    if (count == 0) {
        /* The file ends where the decoder wants more: libjpeg's own "premature end" warning. */
        crop->source.next_input_byte = fake_eoi;
        crop->source.bytes_in_buffer = 2;
        WARNMS(cinfo, JWRN_JPEG_EOF);
        return TRUE;
    }
    crop->offset += count;
    crop->source.next_input_byte = crop->buffer;
    crop->source.bytes_in_buffer = (size_t)count;
    return TRUE;
}

static void source_skip(j_decompress_ptr cinfo, long count) {
    struct crop *crop = (struct crop *)cinfo->client_data;
    if (count <= 0) return;
    if ((size_t)count <= crop->source.bytes_in_buffer) {
        crop->source.next_input_byte += count;
        crop->source.bytes_in_buffer -= (size_t)count;
        return;
    }
    crop->offset += (off_t)((size_t)count - crop->source.bytes_in_buffer);
    crop->source.bytes_in_buffer = 0;
}

static void source_term(j_decompress_ptr cinfo) { (void)cinfo; }

static struct crop *crop_create(int fd) {
    struct crop *crop = calloc(1, sizeof(*crop));
    if (crop == NULL) return NULL;
    crop->fd = fd;
    crop->cinfo.err = jpeg_std_error(&crop->errors);
    crop->errors.error_exit = fail_now;
    crop->errors.emit_message = on_message;
    crop->cinfo.client_data = crop;
    crop->source.init_source = source_init;
    crop->source.fill_input_buffer = source_fill;
    crop->source.skip_input_data = source_skip;
    crop->source.resync_to_restart = jpeg_resync_to_restart;
    crop->source.term_source = source_term;
    return crop;
}

static void crop_destroy(struct crop *crop) {
    if (crop->created) jpeg_destroy_decompress(&crop->cinfo);
    free(crop->row);
    free(crop);
}

/* Reads the header (within the caller's setjmp) and checks the colour space. */
static void read_header(struct crop *crop) {
    jpeg_create_decompress(&crop->cinfo);
    crop->created = 1;
    crop->cinfo.src = &crop->source;
    if (jpeg_read_header(&crop->cinfo, TRUE) != JPEG_HEADER_OK) {
        snprintf(crop->message, sizeof(crop->message), "it holds tables but no image");
        longjmp(crop->failure, 1);
    }
    int grey = crop->cinfo.jpeg_color_space == JCS_GRAYSCALE && crop->cinfo.num_components == 1;
    int colour = crop->cinfo.jpeg_color_space == JCS_YCbCr && crop->cinfo.num_components == 3;
    if (!grey && !colour) {
        snprintf(crop->message, sizeof(crop->message), "it is a CMYK or RGB-coded JPEG, which relay does not decode");
        longjmp(crop->failure, 1);
    }
}

static int failed(struct crop *crop, char *message, size_t message_size) {
    if (message != NULL && message_size > 0) snprintf(message, message_size, "%s", crop->message);
    crop_destroy(crop);
    return -1;
}

int relay_jpeg_crop_header(int fd, int *width, int *height, int *components, char *message, size_t message_size) {
    struct crop *crop = crop_create(fd);
    if (crop == NULL) {
        snprintf(message, message_size, "out of memory");
        return -1;
    }
    if (setjmp(crop->failure)) return failed(crop, message, message_size);
    read_header(crop);
    *width = (int)crop->cinfo.image_width;
    *height = (int)crop->cinfo.image_height;
    *components = crop->cinfo.num_components;
    crop_destroy(crop);
    return 0;
}

int relay_jpeg_crop(
    int fd, int left, int top, int width, int height, uint8_t *const *planes, int *components, char *message, size_t message_size) {
    struct crop *crop = crop_create(fd);
    if (crop == NULL) {
        snprintf(message, message_size, "out of memory");
        return -1;
    }
    if (setjmp(crop->failure)) return failed(crop, message, message_size);
    read_header(crop);
    struct jpeg_decompress_struct *cinfo = &crop->cinfo;
    if (left < 0 || top < 0 || width < 1 || height < 1 || (JDIMENSION)left + (JDIMENSION)width > cinfo->image_width ||
        (JDIMENSION)top + (JDIMENSION)height > cinfo->image_height) {
        snprintf(crop->message, sizeof(crop->message), "the rectangle is not inside the %ux%u image", cinfo->image_width,
            cinfo->image_height);
        longjmp(crop->failure, 1);
    }
    int count = cinfo->num_components;
    cinfo->out_color_space = count == 1 ? JCS_GRAYSCALE : JCS_YCbCr;
    cinfo->dct_method = JDCT_ISLOW;
    jpeg_start_decompress(cinfo);
    /* Widened to whole block columns: the rectangle starts `inner` pixels into each row. */
    JDIMENSION x = (JDIMENSION)left;
    JDIMENSION columns = (JDIMENSION)width;
    jpeg_crop_scanline(cinfo, &x, &columns);
    size_t inner = (size_t)left - (size_t)x;
    if (top > 0 && jpeg_skip_scanlines(cinfo, (JDIMENSION)top) != (JDIMENSION)top) {
        snprintf(crop->message, sizeof(crop->message), "the rows above the rectangle could not be skipped");
        longjmp(crop->failure, 1);
    }
    crop->row = malloc((size_t)cinfo->output_width * (size_t)cinfo->output_components);
    if (crop->row == NULL) ERREXIT(cinfo, JERR_OUT_OF_MEMORY);
    for (int y = 0; y < height; y++) {
        JSAMPROW row = crop->row;
        if (jpeg_read_scanlines(cinfo, &row, 1) != 1) {
            snprintf(crop->message, sizeof(crop->message), "the photo ends inside the rectangle");
            longjmp(crop->failure, 1);
        }
        const JSAMPLE *from = crop->row + inner * (size_t)count;
        size_t offset = (size_t)y * (size_t)width;
        if (count == 1) {
            memcpy(planes[0] + offset, from, (size_t)width);
            continue;
        }
        uint8_t *luma = planes[0] + offset;
        uint8_t *blue = planes[1] + offset;
        uint8_t *red = planes[2] + offset;
        for (int i = 0; i < width; i++) {
            luma[i] = from[3 * i];
            blue[i] = from[3 * i + 1];
            red[i] = from[3 * i + 2];
        }
    }
    *components = count;
    /* Nothing below the rectangle is read: destroying the decoder abandons the rest. */
    crop_destroy(crop);
    return 0;
}
