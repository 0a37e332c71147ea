// Thin C helpers for libmicrohttpd calls Swift cannot make directly: the variadic
// MHD_start_daemon, MHD_get_connection_info and MHD_get_daemon_info. The options and every
// decision stay in Swift (SplatServe/MHDDaemon.swift); these only forward arguments.
#include <stdint.h>
#include <sys/types.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <microhttpd.h>

/// Starts a daemon with the options in `options` (terminated by an MHD_OPTION_END item).
/// The listen address comes from an MHD_OPTION_SOCK_ADDR item, so `port` is only a fallback.
static inline struct MHD_Daemon *splat_mhd_start(unsigned int flags, uint16_t port,
                                                 MHD_AccessHandlerCallback handler, void *handler_cls,
                                                 const struct MHD_OptionItem *options) {
    return MHD_start_daemon(flags, port, NULL, NULL, handler, handler_cls,
                            MHD_OPTION_ARRAY, options, MHD_OPTION_END);
}

/// One option item; `value` carries integers and `pointer` carries pointers, as MHD_OPTION_ARRAY
/// expects (function pointers go through splat_mhd_option_function).
static inline struct MHD_OptionItem splat_mhd_option(enum MHD_OPTION option, intptr_t value, void *pointer) {
    struct MHD_OptionItem item = { option, value, pointer };
    return item;
}

/// An option item for MHD_OPTION_NOTIFY_COMPLETED (function pointer in `value`, context in `ptr_value`).
static inline struct MHD_OptionItem splat_mhd_option_completed(MHD_RequestCompletedCallback callback, void *cls) {
    struct MHD_OptionItem item = { MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)callback, cls };
    return item;
}

/// The socket of a connection, or -1.
static inline int splat_mhd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}

/// The port the daemon listens on (0 when unknown); useful after binding port 0.
static inline uint16_t splat_mhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}
