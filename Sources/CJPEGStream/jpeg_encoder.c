#include "jpeg_encoder.h"

#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jpeglib.h>
#include <jerror.h>

/* Written out whenever this much is encoded, so a reader of the file sees it grow. */
#define RELAY_OUTPUT_CHUNK 16384

struct relay_jpeg_encoder {
    struct jpeg_compress_struct cinfo;
    struct jpeg_error_mgr errors;
    struct jpeg_destination_mgr destination;
    jmp_buf failure;
    char message[JMSG_LENGTH_MAX];
    int write_errno;
    int failed;
    int started;

    int fd;
    uint64_t written;
    JOCTET output[RELAY_OUTPUT_CHUNK];

    int components;
    int strip_rows[3];
    int plane_width[3];
    int plane_height[3];
    size_t strip_stride[3];
    JSAMPLE *strip[3];
    JSAMPROW *strip_rows_pointers[3];
};

static void fail_now(j_common_ptr cinfo) {
    relay_jpeg_encoder *encoder = (relay_jpeg_encoder *)cinfo->client_data;
    if (encoder->write_errno == 0) (*cinfo->err->format_message)(cinfo, encoder->message);
    longjmp(encoder->failure, 1);
}

static void on_message(j_common_ptr cinfo, int level) {
    (void)cinfo;
    (void)level; /* an encoder's warnings (none for raw input) change nothing written */
}

static void write_out(j_compress_ptr cinfo, size_t count) {
    relay_jpeg_encoder *encoder = (relay_jpeg_encoder *)cinfo->client_data;
    size_t done = 0;
    while (done < count) {
        ssize_t wrote = write(encoder->fd, encoder->output + done, count - done);
        if (wrote < 0 && errno == EINTR) continue;
        if (wrote <= 0) {
            encoder->write_errno = wrote < 0 ? errno : EIO;
            snprintf(encoder->message, sizeof(encoder->message), "write: %s", strerror(encoder->write_errno));
            fail_now((j_common_ptr)cinfo);
        }
        done += (size_t)wrote;
    }
    encoder->written += count;
}

static void destination_init(j_compress_ptr cinfo) {
    relay_jpeg_encoder *encoder = (relay_jpeg_encoder *)cinfo->client_data;
    encoder->destination.next_output_byte = encoder->output;
    encoder->destination.free_in_buffer = RELAY_OUTPUT_CHUNK;
}

static boolean destination_empty(j_compress_ptr cinfo) {
    relay_jpeg_encoder *encoder = (relay_jpeg_encoder *)cinfo->client_data;
    write_out(cinfo, RELAY_OUTPUT_CHUNK);
    encoder->destination.next_output_byte = encoder->output;
    encoder->destination.free_in_buffer = RELAY_OUTPUT_CHUNK;
    return TRUE;
}

static void destination_term(j_compress_ptr cinfo) {
    relay_jpeg_encoder *encoder = (relay_jpeg_encoder *)cinfo->client_data;
    write_out(cinfo, RELAY_OUTPUT_CHUNK - encoder->destination.free_in_buffer);
}

static void flush_written(relay_jpeg_encoder *encoder) {
    size_t pending = RELAY_OUTPUT_CHUNK - encoder->destination.free_in_buffer;
    if (pending == 0) return;
    write_out(&encoder->cinfo, pending);
    encoder->destination.next_output_byte = encoder->output;
    encoder->destination.free_in_buffer = RELAY_OUTPUT_CHUNK;
}

static void free_strips(relay_jpeg_encoder *encoder) {
    for (int c = 0; c < 3; c++) {
        free(encoder->strip[c]);
        free(encoder->strip_rows_pointers[c]);
        encoder->strip[c] = NULL;
        encoder->strip_rows_pointers[c] = NULL;
    }
}

relay_jpeg_encoder *relay_jpeg_encoder_create(void) {
    relay_jpeg_encoder *encoder = calloc(1, sizeof(*encoder));
    if (encoder == NULL) return NULL;
    encoder->cinfo.err = jpeg_std_error(&encoder->errors);
    encoder->errors.error_exit = fail_now;
    encoder->errors.emit_message = on_message;
    encoder->cinfo.client_data = encoder;
    if (setjmp(encoder->failure)) {
        free(encoder);
        return NULL;
    }
    jpeg_create_compress(&encoder->cinfo);
    encoder->destination.init_destination = destination_init;
    encoder->destination.empty_output_buffer = destination_empty;
    encoder->destination.term_destination = destination_term;
    encoder->cinfo.dest = &encoder->destination;
    encoder->fd = -1;
    return encoder;
}

void relay_jpeg_encoder_destroy(relay_jpeg_encoder *encoder) {
    if (encoder == NULL) return;
    jpeg_destroy_compress(&encoder->cinfo);
    free_strips(encoder);
    free(encoder);
}

void relay_jpeg_encoder_abort(relay_jpeg_encoder *encoder) {
    jpeg_abort_compress(&encoder->cinfo);
    free_strips(encoder);
    encoder->failed = 0;
    encoder->started = 0;
    encoder->write_errno = 0;
    encoder->message[0] = 0;
    encoder->fd = -1;
}

int relay_jpeg_encoder_start(
    relay_jpeg_encoder *encoder, int fd, int width, int height, int components, int subsampled, int quality, int jfif) {
    if (encoder->failed || encoder->started) return -1;
    if (setjmp(encoder->failure)) {
        encoder->failed = 1;
        return -1;
    }
    struct jpeg_compress_struct *cinfo = &encoder->cinfo;
    encoder->fd = fd;
    encoder->written = 0;
    cinfo->image_width = (JDIMENSION)width;
    cinfo->image_height = (JDIMENSION)height;
    cinfo->in_color_space = components == 1 ? JCS_GRAYSCALE : JCS_RGB;
    cinfo->input_components = components;
    jpeg_set_defaults(cinfo);
    jpeg_set_quality(cinfo, quality, TRUE);
    cinfo->dct_method = quality >= 96 ? JDCT_ISLOW : JDCT_FASTEST;
    jpeg_set_colorspace(cinfo, components == 1 ? JCS_GRAYSCALE : JCS_YCbCr);
    int luma_factor = components == 3 && subsampled ? 2 : 1;
    cinfo->comp_info[0].h_samp_factor = luma_factor;
    cinfo->comp_info[0].v_samp_factor = luma_factor;
    for (int c = 1; c < components; c++) {
        cinfo->comp_info[c].h_samp_factor = 1;
        cinfo->comp_info[c].v_samp_factor = 1;
    }
    cinfo->write_JFIF_header = jfif ? TRUE : FALSE;
    cinfo->raw_data_in = TRUE;
    jpeg_start_compress(cinfo, TRUE);
    encoder->components = components;
    for (int c = 0; c < components; c++) {
        jpeg_component_info *component = &cinfo->comp_info[c];
        encoder->strip_rows[c] = component->v_samp_factor * DCTSIZE;
        encoder->plane_width[c] = (int)component->downsampled_width;
        encoder->plane_height[c] = (int)component->downsampled_height;
        encoder->strip_stride[c] = (size_t)component->width_in_blocks * DCTSIZE;
        encoder->strip[c] = malloc(encoder->strip_stride[c] * (size_t)encoder->strip_rows[c]);
        encoder->strip_rows_pointers[c] = malloc(sizeof(JSAMPROW) * (size_t)encoder->strip_rows[c]);
        if (encoder->strip[c] == NULL || encoder->strip_rows_pointers[c] == NULL) ERREXIT(cinfo, JERR_OUT_OF_MEMORY);
        for (int row = 0; row < encoder->strip_rows[c]; row++)
            encoder->strip_rows_pointers[c][row] = encoder->strip[c] + (size_t)row * encoder->strip_stride[c];
    }
    encoder->started = 1;
    return 0;
}

int relay_jpeg_encoder_write_marker(relay_jpeg_encoder *encoder, int marker, const uint8_t *body, unsigned length) {
    if (encoder->failed || !encoder->started) return -1;
    if (setjmp(encoder->failure)) {
        encoder->failed = 1;
        return -1;
    }
    jpeg_write_marker(&encoder->cinfo, marker, body, length);
    return 0;
}

int relay_jpeg_encoder_strip_rows(const relay_jpeg_encoder *encoder, int component) {
    return component >= 0 && component < encoder->components ? encoder->strip_rows[component] : 0;
}

int relay_jpeg_encoder_plane_width(const relay_jpeg_encoder *encoder, int component) {
    return component >= 0 && component < encoder->components ? encoder->plane_width[component] : 0;
}

int relay_jpeg_encoder_plane_height(const relay_jpeg_encoder *encoder, int component) {
    return component >= 0 && component < encoder->components ? encoder->plane_height[component] : 0;
}

int relay_jpeg_encoder_write_strip(
    relay_jpeg_encoder *encoder, const uint8_t *const *rows, const int *strides, const int *available) {
    if (encoder->failed || !encoder->started) return -1;
    if (setjmp(encoder->failure)) {
        encoder->failed = 1;
        return -1;
    }
    for (int c = 0; c < encoder->components; c++) {
        int width = encoder->plane_width[c];
        int real = available[c] < encoder->strip_rows[c] ? available[c] : encoder->strip_rows[c];
        if (real < 1) real = 1;
        for (int row = 0; row < encoder->strip_rows[c]; row++) {
            const uint8_t *source = rows[c] + (size_t)(row < real ? row : real - 1) * (size_t)strides[c];
            JSAMPLE *target = encoder->strip[c] + (size_t)row * encoder->strip_stride[c];
            memcpy(target, source, (size_t)width);
            memset(target + width, source[width - 1], encoder->strip_stride[c] - (size_t)width);
        }
    }
    jpeg_write_raw_data(&encoder->cinfo, encoder->strip_rows_pointers, (JDIMENSION)(encoder->cinfo.max_v_samp_factor * DCTSIZE));
    flush_written(encoder);
    return 0;
}

int relay_jpeg_encoder_finish(relay_jpeg_encoder *encoder) {
    if (encoder->failed || !encoder->started) return -1;
    if (setjmp(encoder->failure)) {
        encoder->failed = 1;
        return -1;
    }
    jpeg_finish_compress(&encoder->cinfo);
    free_strips(encoder);
    encoder->started = 0;
    return 0;
}

uint64_t relay_jpeg_encoder_written(const relay_jpeg_encoder *encoder) { return encoder->written; }

const char *relay_jpeg_encoder_message(const relay_jpeg_encoder *encoder) { return encoder->message; }

int relay_jpeg_encoder_errno(const relay_jpeg_encoder *encoder) { return encoder->write_errno; }
