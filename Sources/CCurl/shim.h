#ifndef RELAY_CCURL_SHIM_H
#define RELAY_CCURL_SHIM_H

/*
 * Typed, non-variadic wrappers around libcurl's variadic entry points.
 * Swift cannot call C variadic functions, so each argument kind curl_easy_setopt and
 * curl_easy_getinfo accept gets one wrapper; the option constants stay curl's own.
 * Keeping curl's type-checking macros active here means a wrong pairing of option and
 * argument kind is caught when this header is compiled.
 */

#include <curl/curl.h>

/* Options that take a long (flags, timeouts, numbers). */
static inline CURLcode relay_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

/* Options that take a C string (curl copies it). */
static inline CURLcode relay_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

/* Options that take an opaque pointer (callback user data, error buffer). */
static inline CURLcode relay_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

/* Options that take a curl_off_t (sizes and byte rates beyond 2 GB). */
static inline CURLcode relay_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

/* Options that take a header list (CURLOPT_HTTPHEADER). */
static inline CURLcode relay_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}

/* CURLOPT_MIMEPOST. */
static inline CURLcode relay_easy_setopt_mime(CURL *handle, CURLoption option, curl_mime *value) {
    return curl_easy_setopt(handle, option, value);
}

/* Callback setters: one per callback signature. */
static inline CURLcode relay_easy_setopt_write_function(CURL *handle, curl_write_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, callback);
}

static inline CURLcode relay_easy_setopt_header_function(CURL *handle, curl_write_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_HEADERFUNCTION, callback);
}

static inline CURLcode relay_easy_setopt_read_function(CURL *handle, curl_read_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_READFUNCTION, callback);
}

static inline CURLcode relay_easy_setopt_seek_function(CURL *handle, curl_seek_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_SEEKFUNCTION, callback);
}

static inline CURLcode relay_easy_setopt_xferinfo_function(CURL *handle, curl_xferinfo_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, callback);
}

/* CURLOPT_SSH_KEYFUNCTION: the SFTP host key check. */
static inline CURLcode relay_easy_setopt_sshkey_function(CURL *handle, curl_sshkeycallback callback) {
    return curl_easy_setopt(handle, CURLOPT_SSH_KEYFUNCTION, callback);
}

/* Info getters: one per result kind. */
static inline CURLcode relay_easy_getinfo_long(CURL *handle, CURLINFO info, long *out) {
    return curl_easy_getinfo(handle, info, out);
}

static inline CURLcode relay_easy_getinfo_double(CURL *handle, CURLINFO info, double *out) {
    return curl_easy_getinfo(handle, info, out);
}

static inline CURLcode relay_easy_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *out) {
    return curl_easy_getinfo(handle, info, out);
}

static inline CURLcode relay_easy_getinfo_string(CURL *handle, CURLINFO info, char **out) {
    return curl_easy_getinfo(handle, info, out);
}

/* Constants defined as macros that Swift does not import. */
static inline CURLcode relay_global_init_default(void) {
    return curl_global_init(CURL_GLOBAL_DEFAULT);
}

static const int relay_curl_error_size = CURL_ERROR_SIZE;
static const size_t relay_readfunc_abort = CURL_READFUNC_ABORT;
static const int relay_seekfunc_ok = CURL_SEEKFUNC_OK;
static const int relay_seekfunc_fail = CURL_SEEKFUNC_FAIL;
static const int relay_seekfunc_cantseek = CURL_SEEKFUNC_CANTSEEK;

#endif
