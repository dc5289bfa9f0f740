#ifndef RELAY_COPENSSL_SHIM_H
#define RELAY_COPENSSL_SHIM_H

/*
 * OpenSSL for the FTP receiver: SHA-256 of received photos (to recognise one sent twice) and
 * explicit FTPS (RFC 4217) with a self-signed certificate made on first start.
 * The functions below wrap what Swift cannot call (macros, variadic calls) or what is clearer
 * done in one C step (making the key and certificate); the rest of libssl is called directly.
 */

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <stdio.h>

/* A server context: TLS 1.2 at least, the certificate and key from PEM files. 0 on success. */
static inline SSL_CTX *relay_tls_server_context(const char *certificate_path, const char *key_path) {
    SSL_CTX *context = SSL_CTX_new(TLS_server_method());
    if (context == NULL) return NULL;
    SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION);
    /*
     * No TLS 1.3 session tickets: a client that only writes on a data connection never reads
     * them, and closing a socket with unread bytes makes the kernel send a reset, which throws
     * away the upload's last bytes before relay has read them.
     */
    SSL_CTX_set_num_tickets(context, 0);
    /* A client that closes without close_notify ends the stream as in the clear. */
    SSL_CTX_set_options(context, SSL_OP_IGNORE_UNEXPECTED_EOF);
    /* Data connections resume the control connection's session (vsftpd's require_ssl_reuse). */
    SSL_CTX_set_session_cache_mode(context, SSL_SESS_CACHE_SERVER);
    SSL_CTX_set_session_id_context(context, (const unsigned char *)"relay-ftp", 9);
    if (SSL_CTX_use_certificate_file(context, certificate_path, SSL_FILETYPE_PEM) != 1
        || SSL_CTX_use_PrivateKey_file(context, key_path, SSL_FILETYPE_PEM) != 1
        || SSL_CTX_check_private_key(context) != 1) {
        SSL_CTX_free(context);
        return NULL;
    }
    return context;
}

/*
 * Makes a P-256 key and a self-signed certificate for `common_name`, valid for `days`, and
 * writes them as PEM (the key file mode 0600 is the caller's job). 1 on success.
 */
static inline int relay_tls_make_certificate(const char *certificate_path, const char *key_path, const char *common_name, long days) {
    int ok = 0;
    EVP_PKEY *key = EVP_EC_gen("P-256");
    X509 *certificate = X509_new();
    FILE *file = NULL;
    if (key == NULL || certificate == NULL) goto done;
    X509_set_version(certificate, 2);
    ASN1_INTEGER_set(X509_get_serialNumber(certificate), (long)time(NULL));
    X509_gmtime_adj(X509_getm_notBefore(certificate), -3600);
    X509_gmtime_adj(X509_getm_notAfter(certificate), days * 24 * 3600);
    X509_set_pubkey(certificate, key);
    X509_NAME *name = X509_get_subject_name(certificate);
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, (const unsigned char *)common_name, -1, -1, 0);
    X509_NAME_add_entry_by_txt(name, "O", MBSTRING_UTF8, (const unsigned char *)"relay", -1, -1, 0);
    X509_set_issuer_name(certificate, name);
    if (X509_sign(certificate, key, EVP_sha256()) == 0) goto done;
    file = fopen(key_path, "w");
    if (file == NULL || PEM_write_PrivateKey(file, key, NULL, NULL, 0, NULL, NULL) != 1) goto done;
    fclose(file);
    file = fopen(certificate_path, "w");
    if (file == NULL || PEM_write_X509(file, certificate) != 1) goto done;
    ok = 1;
done:
    if (file != NULL) fclose(file);
    X509_free(certificate);
    EVP_PKEY_free(key);
    return ok;
}

/* The SHA-256 of the context's certificate (DER), 32 bytes into `out`. 1 on success. */
static inline int relay_tls_certificate_sha256(SSL_CTX *context, unsigned char *out) {
    X509 *certificate = SSL_CTX_get0_certificate(context);
    unsigned int length = 0;
    return certificate != NULL && X509_digest(certificate, EVP_sha256(), out, &length) == 1 && length == 32;
}

/* The last OpenSSL error as text (for messages), "" when there is none. */
static inline void relay_tls_last_error(char *buffer, size_t size) {
    unsigned long code = ERR_get_error();
    if (code == 0) { if (size) buffer[0] = 0; return; }
    ERR_error_string_n(code, buffer, size);
    ERR_clear_error();
}

#endif
