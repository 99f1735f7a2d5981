/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMOCK_ERRNO_H
#define KMOCK_ERRNO_H
#define ENOENT 2
#define EIO 5
#define E2BIG 7
#define ENOEXEC 8
#define ENOMEM 12
#define EINVAL 22
#define EFBIG 27
#define ERANGE 34
#define ENAMETOOLONG 36
#define EOPNOTSUPP 95
#define ENOTCONN 107
#endif
