#include "CCurl.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

// The libcurl entry points this package calls, resolved once by load().
static struct {
    CURLcode (*global_init)(long flags);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *handle);
    CURLcode (*easy_perform)(CURL *handle);
    const char *(*easy_strerror)(CURLcode code);
    CURLcode (*easy_setopt)(CURL *handle, CURLoption option, ...);
    CURLcode (*easy_getinfo)(CURL *handle, CURLINFO info, ...);
    struct curl_slist *(*slist_append)(struct curl_slist *list, const char *line);
    void (*slist_free_all)(struct curl_slist *list);
} api;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static CURLcode init_status = CURLE_FAILED_INIT;
static char load_error[512] = "libcurl is not loaded yet";

static int resolve(void *library, void **slot, const char *name) {
    *slot = dlsym(library, name);
    if (*slot == NULL) snprintf(load_error, sizeof load_error, "libcurl has no %s", name);
    return *slot != NULL;
}

static void load(void) {
    void *library = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) library = dlopen("libcurl.so", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        snprintf(load_error, sizeof load_error, "cannot load libcurl (install libcurl4): %s", dlerror());
        return;
    }
    if (!resolve(library, (void **)&api.global_init, "curl_global_init")
        || !resolve(library, (void **)&api.easy_init, "curl_easy_init")
        || !resolve(library, (void **)&api.easy_cleanup, "curl_easy_cleanup")
        || !resolve(library, (void **)&api.easy_perform, "curl_easy_perform")
        || !resolve(library, (void **)&api.easy_strerror, "curl_easy_strerror")
        || !resolve(library, (void **)&api.easy_setopt, "curl_easy_setopt")
        || !resolve(library, (void **)&api.easy_getinfo, "curl_easy_getinfo")
        || !resolve(library, (void **)&api.slist_append, "curl_slist_append")
        || !resolve(library, (void **)&api.slist_free_all, "curl_slist_free_all")) {
        api.easy_strerror = NULL;
        return;
    }
    load_error[0] = '\0';
    init_status = api.global_init(CURL_GLOBAL_DEFAULT);
}

CURLcode splat_curl_global_init(void) {
    pthread_once(&once, load);
    return init_status;
}

const char *splat_curl_load_error(void) { return load_error; }

CURL *splat_curl_easy_init(void) { return api.easy_init(); }
void splat_curl_easy_cleanup(CURL *handle) { api.easy_cleanup(handle); }
CURLcode splat_curl_easy_perform(CURL *handle) { return api.easy_perform(handle); }
struct curl_slist *splat_curl_slist_append(struct curl_slist *list, const char *line) { return api.slist_append(list, line); }
void splat_curl_slist_free_all(struct curl_slist *list) { api.slist_free_all(list); }

const char *splat_curl_easy_strerror(CURLcode code) {
    if (api.easy_strerror != NULL) return api.easy_strerror(code);
    return load_error[0] != '\0' ? load_error : "libcurl error";
}

CURLcode splat_curl_setopt_long(CURL *handle, CURLoption option, long value) { return api.easy_setopt(handle, option, value); }
CURLcode splat_curl_setopt_offset(CURL *handle, CURLoption option, curl_off_t value) { return api.easy_setopt(handle, option, value); }
CURLcode splat_curl_setopt_string(CURL *handle, CURLoption option, const char *value) { return api.easy_setopt(handle, option, value); }
CURLcode splat_curl_setopt_pointer(CURL *handle, CURLoption option, void *value) { return api.easy_setopt(handle, option, value); }
CURLcode splat_curl_setopt_list(CURL *handle, CURLoption option, struct curl_slist *value) { return api.easy_setopt(handle, option, value); }
CURLcode splat_curl_setopt_write(CURL *handle, CURLoption option, curl_write_callback value) { return api.easy_setopt(handle, option, value); }
CURLcode splat_curl_setopt_read(CURL *handle, CURLoption option, curl_read_callback value) { return api.easy_setopt(handle, option, value); }
CURLcode splat_curl_setopt_seek(CURL *handle, CURLoption option, curl_seek_callback value) { return api.easy_setopt(handle, option, value); }
CURLcode splat_curl_setopt_xferinfo(CURL *handle, CURLoption option, curl_xferinfo_callback value) { return api.easy_setopt(handle, option, value); }
CURLcode splat_curl_getinfo_long(CURL *handle, CURLINFO info, long *value) { return api.easy_getinfo(handle, info, value); }
CURLcode splat_curl_getinfo_string(CURL *handle, CURLINFO info, char **value) { return api.easy_getinfo(handle, info, value); }
