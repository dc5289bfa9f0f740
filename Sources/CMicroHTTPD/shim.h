#ifndef RELAY_CMICROHTTPD_SHIM_H
#define RELAY_CMICROHTTPD_SHIM_H

/*
 * libmicrohttpd (Debian libmicrohttpd-dev), which serves the status page. MHD_start_daemon is
 * variadic, which Swift cannot call: this wrapper passes the options the status server uses.
 */

#include <stdint.h>
#include <sys/socket.h>
#include <netdb.h>
#include <netinet/in.h>
#include <microhttpd.h>

/*
 * Starts a daemon with `threads` polling threads on a socket the caller has bound and listens on
 * (so the caller reports a port in use itself, with its errno): a thumbnail being made on one
 * does not hold up the others. Connections beyond `connection_limit` are refused; one idle for
 * `timeout_seconds` is closed. `completed` is called when a request ends, however it ends (to
 * free what the handler kept for it). No error log: the daemon's messages (a phone that went
 * away mid-response) would garble the run's console.
 */
static inline struct MHD_Daemon *relay_mhd_start(int listen_fd, unsigned int connection_limit,
                                                 unsigned int timeout_seconds, unsigned int threads,
                                                 MHD_AccessHandlerCallback handler, void *handler_context,
                                                 MHD_RequestCompletedCallback completed) {
    return MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL, 0, NULL, NULL,
                            handler, handler_context,
                            MHD_OPTION_LISTEN_SOCKET, (MHD_socket)listen_fd,
                            MHD_OPTION_CONNECTION_LIMIT, connection_limit,
                            MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
                            MHD_OPTION_THREAD_POOL_SIZE, threads,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, NULL,
                            MHD_OPTION_END);
}

/*
 * Starts the HTTP inbox's daemon: one thread per connection (a request's body is written and
 * fsynced on its own thread, and one slow sender holds up nobody), at most `connection_limit`
 * connections and `per_ip_limit` from one address, one idle for `timeout_seconds` closed.
 */
static inline struct MHD_Daemon *relay_mhd_start_threaded(int listen_fd, unsigned int connection_limit,
                                                          unsigned int per_ip_limit, unsigned int timeout_seconds,
                                                          MHD_AccessHandlerCallback handler, void *handler_context,
                                                          MHD_RequestCompletedCallback completed) {
    return MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION | MHD_USE_POLL, 0, NULL, NULL,
                            handler, handler_context,
                            MHD_OPTION_LISTEN_SOCKET, (MHD_socket)listen_fd,
                            MHD_OPTION_CONNECTION_LIMIT, connection_limit,
                            MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_ip_limit,
                            MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, NULL,
                            MHD_OPTION_END);
}

/*
 * The client's address of a connection as text (MHD_get_connection_info is variadic); an empty
 * string when it cannot be told.
 */
static inline void relay_mhd_client_address(struct MHD_Connection *connection, char *buffer, size_t length) {
    buffer[0] = 0;
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (info == NULL || info->client_addr == NULL) return;
    const struct sockaddr *address = info->client_addr;
    socklen_t size = address->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
    if (getnameinfo(address, size, buffer, (socklen_t)length, NULL, 0, NI_NUMERICHOST) != 0) buffer[0] = 0;
}

#endif
