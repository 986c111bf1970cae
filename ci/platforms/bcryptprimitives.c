/* A stand-in for Windows 10's bcryptprimitives.dll, for running our Windows runtime
 * under Wine 8.0 (Debian 12), which lacks it: Rust's std imports ProcessPrng from it
 * (for HashMap seeds). Backed by RtlGenRandom (advapi32's SystemFunction036), which
 * Wine has. Test harness only (ci/platforms.py); never shipped in an FMU: real
 * Windows 10 and later have the DLL. */
#include <windows.h>

BOOLEAN NTAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length) {
  while (length > 0) {
    ULONG n = length > 0x7fffffffu ? 0x7fffffffu : (ULONG)length;
    if (!SystemFunction036(data, n)) return FALSE;
    data += n;
    length -= n;
  }
  return TRUE;
}
