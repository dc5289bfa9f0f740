#include "jpeg_stream.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <jerror.h>

#if JPEG_LIB_VERSION >= 70
#define RELAY_H_SCALED(c) ((c)->DCT_h_scaled_size)
#define RELAY_V_SCALED(c) ((c)->DCT_v_scaled_size)
#define RELAY_MIN_V_SCALED(cinfo) ((cinfo)->min_DCT_v_scaled_size)
#else
#define RELAY_H_SCALED(c) ((c)->DCT_scaled_size)
#define RELAY_V_SCALED(c) ((c)->DCT_scaled_size)
#define RELAY_MIN_V_SCALED(cinfo) ((cinfo)->min_DCT_scaled_size)
#endif

enum phase { PHASE_HEADER, PHASE_HEADER_READ, PHASE_STARTED, PHASE_FINISHING, PHASE_DONE, PHASE_FAILED };

struct relay_jpeg_stream {
    struct jpeg_decompress_struct cinfo;
    struct jpeg_error_mgr errors;
    struct jpeg_source_mgr source;
    jmp_buf failure;
    char message[JMSG_LENGTH_MAX];
    enum phase phase;
    /* Whether the scale was set: jpeg_start_decompress is repeated after a suspension. */
    int scaled;

    /* Input not consumed yet: source.next_input_byte points into it, or to the fake EOI. */
    uint8_t *buffer;
    size_t capacity;
    /* Bytes libjpeg asked to skip that had not arrived yet: dropped from what is appended. */
    uint64_t skip;
    int at_end;

    /* One strip per component, as libjpeg writes it (whole blocks), cropped into the planes. */
    int components;
    int plane_width[3];
    int plane_height[3];
    int rows[3];
    int strip_rows[3];
    size_t strip_stride[3];
    uint8_t *strip[3];
    JSAMPROW *strip_row_pointers[3];
};

static const JOCTET fake_eoi[2] = {0xFF, JPEG_EOI};

/* libjpeg's errors and warnings leave through the caller's setjmp, with the library's message. */
static void fail_now(j_common_ptr cinfo) {
    relay_jpeg_stream *stream = (relay_jpeg_stream *)cinfo->client_data;
    (*cinfo->err->format_message)(cinfo, stream->message);
    longjmp(stream->failure, 1);
}

static void on_message(j_common_ptr cinfo, int level) {
    /* A warning is corrupt or missing data: a rendition must not show grey where the photo
       was damaged (as TurboJPEG's TJFLAG_STOPONWARNING). Traces are ignored. */
    if (level < 0) fail_now(cinfo);
}

static void source_init(j_decompress_ptr cinfo) { (void)cinfo; }

static boolean source_fill(j_decompress_ptr cinfo) {
    relay_jpeg_stream *stream = (relay_jpeg_stream *)cinfo->client_data;
    if (!stream->at_end) return FALSE; /* suspend: the caller appends and repeats */
    /* The file ended where the decoder wants more: libjpeg's own "premature end" warning
       (as jdatasrc.c does), which fails the stream. */
    stream->source.next_input_byte = fake_eoi;
    stream->source.bytes_in_buffer = 2;
    WARNMS(cinfo, JWRN_JPEG_EOF);
    return TRUE;
}

static void source_skip(j_decompress_ptr cinfo, long count) {
    relay_jpeg_stream *stream = (relay_jpeg_stream *)cinfo->client_data;
    if (count <= 0) return;
    size_t wanted = (size_t)count;
    if (wanted <= stream->source.bytes_in_buffer) {
        stream->source.next_input_byte += wanted;
        stream->source.bytes_in_buffer -= wanted;
        return;
    }
    stream->skip += wanted - stream->source.bytes_in_buffer;
    stream->source.next_input_byte += stream->source.bytes_in_buffer;
    stream->source.bytes_in_buffer = 0;
}

static void source_term(j_decompress_ptr cinfo) { (void)cinfo; }

static void free_strips(relay_jpeg_stream *stream) {
    for (int c = 0; c < 3; c++) {
        free(stream->strip[c]);
        free(stream->strip_row_pointers[c]);
        stream->strip[c] = NULL;
        stream->strip_row_pointers[c] = NULL;
        stream->rows[c] = 0;
    }
    stream->components = 0;
}

relay_jpeg_stream *relay_jpeg_stream_create(void) {
    relay_jpeg_stream *stream = calloc(1, sizeof(*stream));
    if (stream == NULL) return NULL;
    stream->cinfo.err = jpeg_std_error(&stream->errors);
    stream->errors.error_exit = fail_now;
    stream->errors.emit_message = on_message;
    stream->cinfo.client_data = stream;
    if (setjmp(stream->failure)) {
        free(stream);
        return NULL;
    }
    jpeg_create_decompress(&stream->cinfo);
    stream->source.init_source = source_init;
    stream->source.fill_input_buffer = source_fill;
    stream->source.skip_input_data = source_skip;
    stream->source.resync_to_restart = jpeg_resync_to_restart;
    stream->source.term_source = source_term;
    stream->cinfo.src = &stream->source;
    stream->phase = PHASE_HEADER;
    return stream;
}

void relay_jpeg_stream_destroy(relay_jpeg_stream *stream) {
    if (stream == NULL) return;
    jpeg_destroy_decompress(&stream->cinfo);
    free_strips(stream);
    free(stream->buffer);
    free(stream);
}

void relay_jpeg_stream_reset(relay_jpeg_stream *stream) {
    jpeg_abort_decompress(&stream->cinfo);
    free_strips(stream);
    stream->source.next_input_byte = stream->buffer;
    stream->source.bytes_in_buffer = 0;
    stream->skip = 0;
    stream->at_end = 0;
    stream->scaled = 0;
    stream->message[0] = 0;
    stream->phase = PHASE_HEADER;
}

int relay_jpeg_stream_append(relay_jpeg_stream *stream, const uint8_t *bytes, size_t count) {
    if (stream->skip > 0) {
        size_t dropped = stream->skip < count ? (size_t)stream->skip : count;
        bytes += dropped;
        count -= dropped;
        stream->skip -= dropped;
    }
    if (count == 0) return 0;
    size_t kept = stream->source.bytes_in_buffer;
    const JOCTET *from = stream->source.next_input_byte;
    if (from == fake_eoi) kept = 0; /* never: the input had ended */
    if (kept + count > stream->capacity) {
        size_t capacity = stream->capacity ? stream->capacity : 65536;
        while (capacity < kept + count) capacity *= 2;
        uint8_t *grown = malloc(capacity);
        if (grown == NULL) return -1;
        if (kept > 0) memcpy(grown, from, kept);
        free(stream->buffer);
        stream->buffer = grown;
        stream->capacity = capacity;
    } else if (kept > 0 && from != stream->buffer) {
        memmove(stream->buffer, from, kept);
    }
    memcpy(stream->buffer + kept, bytes, count);
    stream->source.next_input_byte = stream->buffer;
    stream->source.bytes_in_buffer = kept + count;
    return 0;
}

void relay_jpeg_stream_end_input(relay_jpeg_stream *stream) { stream->at_end = 1; }

size_t relay_jpeg_stream_buffered(const relay_jpeg_stream *stream) { return stream->source.bytes_in_buffer; }

relay_jpeg_status relay_jpeg_stream_read_header(relay_jpeg_stream *stream, relay_jpeg_header *header) {
    if (stream->phase == PHASE_FAILED) return RELAY_JPEG_FAILED;
    if (setjmp(stream->failure)) {
        stream->phase = PHASE_FAILED;
        return RELAY_JPEG_FAILED;
    }
    struct jpeg_decompress_struct *cinfo = &stream->cinfo;
    if (stream->phase == PHASE_HEADER) {
        int read = jpeg_read_header(cinfo, TRUE);
        if (read == JPEG_SUSPENDED) return RELAY_JPEG_NEEDS_INPUT;
        if (read != JPEG_HEADER_OK) {
            snprintf(stream->message, sizeof(stream->message), "it holds tables but no image");
            stream->phase = PHASE_FAILED;
            return RELAY_JPEG_FAILED;
        }
        int grey = cinfo->jpeg_color_space == JCS_GRAYSCALE && cinfo->num_components == 1;
        int colour = cinfo->jpeg_color_space == JCS_YCbCr && cinfo->num_components == 3;
        if (!grey && !colour) {
            snprintf(stream->message, sizeof(stream->message), "it is a CMYK or RGB-coded JPEG, which renditions do not handle");
            stream->phase = PHASE_FAILED;
            return RELAY_JPEG_FAILED;
        }
        stream->phase = PHASE_HEADER_READ;
    }
    header->width = (int)cinfo->image_width;
    header->height = (int)cinfo->image_height;
    header->components = cinfo->num_components;
    header->multiple_scans = jpeg_has_multiple_scans(cinfo) ? 1 : 0;
    return RELAY_JPEG_READY;
}

static int allocate_strips(relay_jpeg_stream *stream) {
    struct jpeg_decompress_struct *cinfo = &stream->cinfo;
    stream->components = cinfo->num_components;
    for (int c = 0; c < cinfo->num_components; c++) {
        jpeg_component_info *component = &cinfo->comp_info[c];
        int block_width = RELAY_H_SCALED(component) > DCTSIZE ? RELAY_H_SCALED(component) : DCTSIZE;
        int block_height = RELAY_V_SCALED(component) > DCTSIZE ? RELAY_V_SCALED(component) : DCTSIZE;
        stream->plane_width[c] = (int)component->downsampled_width;
        stream->plane_height[c] = (int)component->downsampled_height;
        stream->strip_rows[c] = component->v_samp_factor * RELAY_V_SCALED(component);
        stream->strip_stride[c] = (size_t)component->width_in_blocks * (size_t)block_width;
        size_t rows = (size_t)component->v_samp_factor * (size_t)block_height;
        stream->strip[c] = malloc(stream->strip_stride[c] * rows);
        stream->strip_row_pointers[c] = malloc(sizeof(JSAMPROW) * rows);
        if (stream->strip[c] == NULL || stream->strip_row_pointers[c] == NULL) return -1;
        for (size_t row = 0; row < rows; row++)
            stream->strip_row_pointers[c][row] = stream->strip[c] + row * stream->strip_stride[c];
        stream->rows[c] = 0;
    }
    return 0;
}

relay_jpeg_status relay_jpeg_stream_start(relay_jpeg_stream *stream, unsigned num, unsigned denom, relay_jpeg_layout *layout) {
    if (stream->phase == PHASE_FAILED) return RELAY_JPEG_FAILED;
    if (setjmp(stream->failure)) {
        stream->phase = PHASE_FAILED;
        return RELAY_JPEG_FAILED;
    }
    struct jpeg_decompress_struct *cinfo = &stream->cinfo;
    if (stream->phase == PHASE_HEADER_READ) {
        if (!stream->scaled) {
            stream->scaled = 1;
            cinfo->scale_num = num;
            cinfo->scale_denom = denom;
            cinfo->raw_data_out = TRUE;
            cinfo->dct_method = JDCT_ISLOW;
        }
        if (!jpeg_start_decompress(cinfo)) return RELAY_JPEG_NEEDS_INPUT;
        if (allocate_strips(stream) != 0) {
            snprintf(stream->message, sizeof(stream->message), "out of memory for the decoded strips");
            stream->phase = PHASE_FAILED;
            return RELAY_JPEG_FAILED;
        }
        stream->phase = PHASE_STARTED;
    }
    for (int c = 0; c < 3; c++) {
        layout->width[c] = c < stream->components ? stream->plane_width[c] : 0;
        layout->height[c] = c < stream->components ? stream->plane_height[c] : 0;
    }
    return RELAY_JPEG_READY;
}

relay_jpeg_status relay_jpeg_stream_read_strip(relay_jpeg_stream *stream, uint8_t *const *planes) {
    if (stream->phase == PHASE_FAILED) return RELAY_JPEG_FAILED;
    if (stream->phase != PHASE_STARTED) return RELAY_JPEG_DONE;
    if (setjmp(stream->failure)) {
        stream->phase = PHASE_FAILED;
        return RELAY_JPEG_FAILED;
    }
    struct jpeg_decompress_struct *cinfo = &stream->cinfo;
    if (cinfo->output_scanline >= cinfo->output_height) {
        stream->phase = PHASE_FINISHING;
        return RELAY_JPEG_DONE;
    }
    JDIMENSION lines = (JDIMENSION)(cinfo->max_v_samp_factor * RELAY_MIN_V_SCALED(cinfo));
    if (jpeg_read_raw_data(cinfo, stream->strip_row_pointers, lines) == 0) return RELAY_JPEG_NEEDS_INPUT;
    for (int c = 0; c < stream->components; c++) {
        int rows = stream->strip_rows[c];
        if (rows > stream->plane_height[c] - stream->rows[c]) rows = stream->plane_height[c] - stream->rows[c];
        size_t width = (size_t)stream->plane_width[c];
        for (int row = 0; row < rows; row++)
            memcpy(planes[c] + (size_t)(stream->rows[c] + row) * width, stream->strip_row_pointers[c][row], width);
        stream->rows[c] += rows;
    }
    return RELAY_JPEG_READY;
}

relay_jpeg_status relay_jpeg_stream_finish(relay_jpeg_stream *stream) {
    if (stream->phase == PHASE_FAILED) return RELAY_JPEG_FAILED;
    if (stream->phase == PHASE_DONE) return RELAY_JPEG_READY;
    if (setjmp(stream->failure)) {
        stream->phase = PHASE_FAILED;
        return RELAY_JPEG_FAILED;
    }
    if (!jpeg_finish_decompress(&stream->cinfo)) return RELAY_JPEG_NEEDS_INPUT;
    stream->phase = PHASE_DONE;
    return RELAY_JPEG_READY;
}

int relay_jpeg_stream_rows(const relay_jpeg_stream *stream, int component) {
    return component >= 0 && component < 3 ? stream->rows[component] : 0;
}

const char *relay_jpeg_stream_message(const relay_jpeg_stream *stream) { return stream->message; }
