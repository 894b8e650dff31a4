/* SPDX-License-Identifier: MIT */
/* samples/packet_processing/pp_pages.c - the two HTTP responses the kernel
 * serves with --http, written once at start into memory it reads. */
#include <stdio.h>
#include <string.h>

#include "pp_host.h"

static uint32_t response(uint8_t *out, const char *status, const char *type, const char *body)
{
	int n = snprintf((char *)out, PP_PAGE_MAX,
			 "HTTP/1.1 %s\r\nServer: gnio_packet_processing\r\nContent-Type: %s\r\n"
			 "Content-Length: %zu\r\n\r\n%s",
			 status, type, strlen(body), body);
	return n > 0 && n < (int)PP_PAGE_MAX ? (uint32_t)n : 0;
}

void pp_pages_init(struct pp_shared *shared, const char *device)
{
	char body[640];
	snprintf(body, sizeof(body),
		 "<!DOCTYPE html>\n<html><head><title>gnio packet_processing</title></head>\n"
		 "<body><h1>gnio packet_processing</h1>\n"
		 "<p>This page was sent by a persistent kernel on %s, from the TX queue it shares with the ICMP "
		 "and ARP replies.</p></body></html>\n",
		 device);
	shared->page_len[0] = response(shared->page[0], "200 OK", "text/html", body);
	shared->page_len[1] = response(shared->page[1], "404 Not Found", "text/plain", "not found\n");
}
