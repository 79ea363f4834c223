// libmicrohttpd (Debian libmicrohttpd-dev) for the Dashboard module. MHD_start_daemon is
// variadic, which Swift cannot call: em_mhd_start passes its options as one MHD_OPTION_ARRAY.
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <microhttpd.h>

// `completed` (may be NULL) is called with `handler_cls` when a request ends, however it ends
// (MHD_OPTION_NOTIFY_COMPLETED: it frees what the handler kept for a request body).
static inline struct MHD_Daemon *em_mhd_start(unsigned int flags, uint16_t port,
                                              MHD_AccessHandlerCallback handler, void *handler_cls,
                                              MHD_RequestCompletedCallback completed,
                                              struct MHD_OptionItem *options) {
    return MHD_start_daemon(flags, port, NULL, NULL, handler, handler_cls,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, handler_cls,
                            MHD_OPTION_ARRAY, options, MHD_OPTION_END);
}

/// The port the daemon listens on (useful after binding port 0), or 0.
static inline uint16_t em_mhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info ? info->port : 0;
}
