#ifndef RELAY_FILE_FLUSH_H
#define RELAY_FILE_FLUSH_H

#include <sys/types.h>

/*
 * Starts writing a range of a file to disk without waiting for it (Linux sync_file_range with
 * SYNC_FILE_RANGE_WRITE), so that the fsync that makes a spooled photo durable has little left
 * to do. Not a durability guarantee by itself. Returns 0, or -1 with errno set; a no-op returning
 * 0 where the call does not exist.
 */
int relay_start_writeback(int fd, off_t offset, off_t count);

#endif
