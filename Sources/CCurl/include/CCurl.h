#ifndef CCURL_SHIM_H
#define CCURL_SHIM_H
// libcurl from Debian (libcurl4-openssl-dev), loaded on first use instead of at process start:
// its dependency tree (TLS, Kerberos, LDAP, SSH, HTTP/2, IDN: 27 of the CLI's 58 libraries)
// cost 6 ms of every start, and only URL inputs and outputs need it. The header gives the
// types and constants; every call goes through a pointer resolved by splat_curl_global_init.
// curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call: one typed
// wrapper per argument kind keeps the C side free of logic and lets the compiler check each
// call's argument type.
#include <curl/curl.h>

/// Loads libcurl (once, thread-safe) and runs curl_global_init. CURLE_FAILED_INIT when the
/// library cannot be loaded; splat_curl_load_error() then says why.
CURLcode splat_curl_global_init(void);
/// Why loading failed, or "" once loaded.
const char *splat_curl_load_error(void);

// Valid only after splat_curl_global_init returned CURLE_OK.
CURL *splat_curl_easy_init(void);
void splat_curl_easy_cleanup(CURL *handle);
CURLcode splat_curl_easy_perform(CURL *handle);
struct curl_slist *splat_curl_slist_append(struct curl_slist *list, const char *line);
void splat_curl_slist_free_all(struct curl_slist *list);
/// Safe before loading too: then the load error, or a fixed text.
const char *splat_curl_easy_strerror(CURLcode code);

CURLcode splat_curl_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode splat_curl_setopt_offset(CURL *handle, CURLoption option, curl_off_t value);
CURLcode splat_curl_setopt_string(CURL *handle, CURLoption option, const char *value);
CURLcode splat_curl_setopt_pointer(CURL *handle, CURLoption option, void *value);
CURLcode splat_curl_setopt_list(CURL *handle, CURLoption option, struct curl_slist *value);
CURLcode splat_curl_setopt_write(CURL *handle, CURLoption option, curl_write_callback value);
CURLcode splat_curl_setopt_read(CURL *handle, CURLoption option, curl_read_callback value);
CURLcode splat_curl_setopt_seek(CURL *handle, CURLoption option, curl_seek_callback value);
CURLcode splat_curl_setopt_xferinfo(CURL *handle, CURLoption option, curl_xferinfo_callback value);
CURLcode splat_curl_getinfo_long(CURL *handle, CURLINFO info, long *value);
CURLcode splat_curl_getinfo_string(CURL *handle, CURLINFO info, char **value);
#endif
