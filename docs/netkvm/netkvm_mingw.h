/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Force-included (gcc -include) before every NetKVM NDIS5 source when it is
 * built with mingw-w64 (docs/netkvm/Makefile). Nothing here is NetKVM's:
 * only what mingw-w64's DDK headers declare differently from the DDK the
 * driver was written against. The fixtures' ndisbench_ddk.h already
 * corrects mingw-w64's ndis.h (see fixtures/README.md).
 */
#ifndef NETKVM_MINGW_H
#define NETKVM_MINGW_H

/*
 * ntddndis.h declares the NDIS 6 NDIS_STATISTICS_INFO and
 * NDIS_OFFLOAD_PARAMETERS whatever the NDIS version; an NDIS 5 driver may
 * declare its own of the same names (NetKVM does). Move mingw-w64's out of
 * the way.
 */
#define _NDIS_STATISTICS_INFO     _NDIS_STATISTICS_INFO_ntddndis
#define NDIS_STATISTICS_INFO      NDIS_STATISTICS_INFO_ntddndis
#define PNDIS_STATISTICS_INFO     PNDIS_STATISTICS_INFO_ntddndis
#define _NDIS_OFFLOAD_PARAMETERS  _NDIS_OFFLOAD_PARAMETERS_ntddndis
#define NDIS_OFFLOAD_PARAMETERS   NDIS_OFFLOAD_PARAMETERS_ntddndis
#define PNDIS_OFFLOAD_PARAMETERS  PNDIS_OFFLOAD_PARAMETERS_ntddndis

/*
 * netpnp.h's NDIS_DEVICE_PNP_EVENT lacks the first two and the fourth and
 * fifth members, so SurpriseRemoved is 0 where NDIS passes 2. Its copy is
 * renamed here and the DDK's numbering declared below.
 */
#define _NDIS_DEVICE_PNP_EVENT                 _NDIS_DEVICE_PNP_EVENT_mingw
#define NDIS_DEVICE_PNP_EVENT                  NDIS_DEVICE_PNP_EVENT_mingw
#define PNDIS_DEVICE_PNP_EVENT                 PNDIS_DEVICE_PNP_EVENT_mingw
#define NdisDevicePnPEventSurpriseRemoved      NdisDevicePnPEventSurpriseRemoved_mingw
#define NdisDevicePnPEventPowerProfileChanged  NdisDevicePnPEventPowerProfileChanged_mingw
#define NdisDevicePnPEventMaximum              NdisDevicePnPEventMaximum_mingw

#include "ndisbench_ddk.h"

#undef _NDIS_STATISTICS_INFO
#undef NDIS_STATISTICS_INFO
#undef PNDIS_STATISTICS_INFO
#undef _NDIS_OFFLOAD_PARAMETERS
#undef NDIS_OFFLOAD_PARAMETERS
#undef PNDIS_OFFLOAD_PARAMETERS
#undef _NDIS_DEVICE_PNP_EVENT
#undef NDIS_DEVICE_PNP_EVENT
#undef PNDIS_DEVICE_PNP_EVENT
#undef NdisDevicePnPEventSurpriseRemoved
#undef NdisDevicePnPEventPowerProfileChanged
#undef NdisDevicePnPEventMaximum

typedef enum _NDIS_DEVICE_PNP_EVENT {
    NdisDevicePnPEventQueryRemoved,
    NdisDevicePnPEventRemoved,
    NdisDevicePnPEventSurpriseRemoved,
    NdisDevicePnPEventQueryStopped,
    NdisDevicePnPEventStopped,
    NdisDevicePnPEventPowerProfileChanged,
    NdisDevicePnPEventMaximum
} NDIS_DEVICE_PNP_EVENT, *PNDIS_DEVICE_PNP_EVENT;

/*
 * MSVC's FORCEINLINE is __forceinline, a plain inline; mingw-w64's carries
 * "extern" (gnu_inline), which clashes with "static FORCEINLINE".
 */
#undef FORCEINLINE
#define FORCEINLINE __inline__ __attribute__((__always_inline__))

/*
 * mingw-w64's wdm.h has KeMemoryBarrier for i386 only; the amd64 WDK
 * makes it an inline full fence, not an import.
 */
#ifdef _WIN64
#define KeMemoryBarrier() __sync_synchronize()
#endif

/* mingw-w64's wdm.h leaves the macro's argument unparenthesized. */
#undef KeInitializeCallbackRecord
#define KeInitializeCallbackRecord(CallbackRecord) \
    ((CallbackRecord)->State = BufferEmpty)

/*
 * MSVC lets __FUNCTION__ be concatenated with a string literal; in gcc it
 * is a variable. The files that do it get a literal (their debug prints
 * lose the function name).
 */
#ifdef NETKVM_MINGW_FUNCTION_LITERAL
#define __FUNCTION__ "netkvm"
#endif

/*
 * MSVC accepts a static definition after an extern declaration of the
 * same function; gcc does not. A file that declares its unload routine
 * with the DDK's DRIVER_UNLOAD typedef and defines it static gets a
 * static declaration instead.
 */
#ifdef NETKVM_MINGW_STATIC_DRIVER_UNLOAD
#define DRIVER_UNLOAD static DRIVER_UNLOAD
#endif

/*
 * The same for a function that a shared header declares extern and one
 * file defines static: that header is read here first, with the
 * function's name changed in its declarations only (its include guard
 * keeps it from being read again).
 */
#ifdef NETKVM_MINGW_STATIC_OID_QUERY
#define ParaNdis_OidQuery ParaNdis_OidQuery_declared_extern
#include "ParaNdis-Oid.h"
#undef ParaNdis_OidQuery
#endif

#endif /* NETKVM_MINGW_H */
