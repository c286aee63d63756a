/* Kernel version, reported in the KIP's kernel descriptor. */
#ifndef VERSION_H
#define VERSION_H

#define PECAN_VERSION_MAJOR  0
#define PECAN_VERSION_MINOR  1
#define PECAN_VERSION_STRING "Pecan 0.1 (L4 X.2, amd64)"
#define PECAN_BUILD_YEAR     2026
#define PECAN_BUILD_MONTH    11
#define PECAN_BUILD_DAY      23

#endif
