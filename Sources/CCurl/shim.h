#ifndef RELAY_CCURL_SHIM_H
#define RELAY_CCURL_SHIM_H
#include <curl/curl.h>
#endif
