/*
 * One function for Node versions whose net module cannot set SO_REUSEPORT
 * (before 22.12): a TCP socket listening on host:port with SO_REUSEPORT set, so
 * that several threads of one process can each listen on the port with a socket
 * of their own and the kernel spreads connections between them. Returns the
 * socket's file descriptor (non-blocking, close-on-exec), which the caller hands
 * to net's listen({ fd }); that server owns and closes it.
 */
#define _GNU_SOURCE
#include <node_api.h>
#include <errno.h>
#include <stdbool.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

/* An Error whose code is the errno's name where callers look for one (EADDRINUSE, EACCES), as node's listen gives. */
static napi_value throw_errno(napi_env env, const char *what, int err) {
  char msg[256];
  const char *code = err == EADDRINUSE ? "EADDRINUSE" : err == EACCES ? "EACCES" : err == EADDRNOTAVAIL ? "EADDRNOTAVAIL" : "ERR_REUSEPORT";
  snprintf(msg, sizeof msg, "listen %s: %s (%s)", code, strerror(err), what);
  napi_throw_error(env, code, msg);
  return NULL;
}

/*
 * Binds a socket without SO_REUSEPORT to the address and closes it: EADDRINUSE
 * when anything listens there already, even a socket with SO_REUSEPORT set
 * (which the real socket would otherwise silently share the port with).
 */
static int probe_exclusive(const struct addrinfo *ai) {
  int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return errno;
  int one = 1, zero = 0, err = 0;
  if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
      (ai->ai_family == AF_INET6 && setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero) != 0) ||
      bind(fd, ai->ai_addr, ai->ai_addrlen) != 0)
    err = errno;
  close(fd);
  return err;
}

/* listen(host: string, port: number, backlog: number, exclusive: boolean): number */
static napi_value listen_reuseport(napi_env env, napi_callback_info info) {
  size_t argc = 4;
  napi_value argv[4];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 4) {
    napi_throw_type_error(env, NULL, "listen(host, port, backlog, exclusive)");
    return NULL;
  }
  char host[256];
  size_t hostLen = 0;
  if (napi_get_value_string_utf8(env, argv[0], host, sizeof host, &hostLen) != napi_ok || hostLen >= sizeof host - 1) {
    napi_throw_type_error(env, NULL, "host: a string of at most 254 bytes");
    return NULL;
  }
  int32_t port = 0, backlog = 0;
  if (napi_get_value_int32(env, argv[1], &port) != napi_ok || port < 0 || port > 65535 ||
      napi_get_value_int32(env, argv[2], &backlog) != napi_ok || backlog < 1) {
    napi_throw_type_error(env, NULL, "port: 0-65535, backlog: at least 1");
    return NULL;
  }
  bool exclusive = false;
  if (napi_get_value_bool(env, argv[3], &exclusive) != napi_ok) {
    napi_throw_type_error(env, NULL, "exclusive: a boolean");
    return NULL;
  }
  char service[8];
  snprintf(service, sizeof service, "%d", port);
  struct addrinfo hints, *res = NULL;
  memset(&hints, 0, sizeof hints);
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  int gai = getaddrinfo(hostLen == 0 ? NULL : host, service, &hints, &res);
  if (gai != 0) {
    char msg[300];
    snprintf(msg, sizeof msg, "getaddrinfo %s: %s", host, gai_strerror(gai));
    napi_throw_error(env, "ENOTFOUND", msg);
    return NULL;
  }
  if (exclusive && port != 0) {
    int err = probe_exclusive(res);
    if (err != 0) {
      freeaddrinfo(res);
      return throw_errno(env, "bind", err);
    }
  }
  int fd = socket(res->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    int err = errno;
    freeaddrinfo(res);
    return throw_errno(env, "socket", err);
  }
  int one = 1, zero = 0;
  if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
      setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one) != 0 ||
      /* "::" takes IPv4 too, as node's own listen does. */
      (res->ai_family == AF_INET6 && setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero) != 0)) {
    int err = errno;
    close(fd);
    freeaddrinfo(res);
    return throw_errno(env, "setsockopt", err);
  }
  if (bind(fd, res->ai_addr, res->ai_addrlen) != 0) {
    int err = errno;
    close(fd);
    freeaddrinfo(res);
    return throw_errno(env, "bind", err);
  }
  freeaddrinfo(res);
  if (listen(fd, backlog) != 0) {
    int err = errno;
    close(fd);
    return throw_errno(env, "listen", err);
  }
  napi_value out;
  napi_create_int32(env, fd, &out);
  return out;
}

static napi_value init(napi_env env, napi_value exports) {
  napi_value fn;
  napi_create_function(env, "listen", NAPI_AUTO_LENGTH, listen_reuseport, NULL, &fn);
  napi_set_named_property(env, exports, "listen", fn);
  return exports;
}

NAPI_MODULE_INIT() {
  return init(env, exports);
}
