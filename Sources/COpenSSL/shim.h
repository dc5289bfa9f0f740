#ifndef RELAY_COPENSSL_SHIM_H
#define RELAY_COPENSSL_SHIM_H

/*
 * OpenSSL for the FTP receiver: SHA-256 of received photos (to recognise one sent twice).
 * EVP's digest calls are plain functions, so Swift calls them directly; this header only
 * brings them in.
 */

#include <openssl/evp.h>

#endif
