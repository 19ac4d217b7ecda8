/**
 * DNS resolution that refuses internal addresses, used by the HTTP agent for every connection.
 * Checking at connection time (not only before the request) means a host name cannot pass the
 * check and then resolve to 127.0.0.1 for the real connection (DNS rebinding): the socket only
 * ever connects to an address this function let through.
 */
import * as dns from "node:dns"
import type { LookupFunction } from "node:net"
import { classifyAddress, isInternal, isLocalhostName, type AddressClass } from "./addresses.js"
import { internalRefusal, normalizeHost, type InternalAccess } from "./urlPolicy.js"

/** Thrown (as the lookup error) when a host resolves to an internal address. */
export class BlockedAddressError extends Error {
  readonly code = "ETOOLGATE_BLOCKED_ADDRESS"
  constructor(readonly host: string, readonly address: string, readonly kind: AddressClass, url: string) {
    super(internalRefusal(url, host, kind, address))
  }
}

export interface ResolvedAddress {
  readonly address: string
  readonly family: number
}

export type Resolver = (host: string) => Promise<ReadonlyArray<ResolvedAddress>>

export const systemResolver: Resolver = (host) => dns.promises.lookup(host, { all: true, verbatim: true })

/** Resolves `host` and refuses it when any address is internal and no rule names the host. */
export const resolveChecked = async (
  host: string,
  access: InternalAccess,
  url: string,
  resolver: Resolver = systemResolver
): Promise<ReadonlyArray<ResolvedAddress>> => {
  const name = normalizeHost(host)
  const literal = classifyAddress(name)
  const addresses: ReadonlyArray<ResolvedAddress> = literal !== undefined
    ? [{ address: name, family: name.includes(":") ? 6 : 4 }]
    : await resolver(name)
  if (access.allows(name)) return addresses
  if (isLocalhostName(name)) throw new BlockedAddressError(name, addresses[0]?.address ?? "127.0.0.1", "loopback", url)
  for (const entry of addresses) {
    const kind = classifyAddress(entry.address) ?? "reserved"
    if (isInternal(kind)) throw new BlockedAddressError(name, entry.address, kind, url)
  }
  return addresses
}

/** A `lookup` for `net.connect` options that applies `resolveChecked` to every connection. */
export const guardedLookup = (
  access: InternalAccess,
  url: () => string,
  resolver: Resolver = systemResolver
): LookupFunction =>
  ((hostname: string, options: dns.LookupOptions, callback: (...args: Array<any>) => void) => {
    resolveChecked(hostname, access, url(), resolver).then(
      (addresses) => {
        const wanted = options.family === 4 || options.family === 6
          ? addresses.filter((a) => a.family === options.family)
          : addresses
        if (wanted.length === 0) {
          const error = Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND", hostname })
          return callback(error)
        }
        if (options.all === true) callback(null, wanted)
        else callback(null, wanted[0]!.address, wanted[0]!.family)
      },
      (error) => callback(error)
    )
  }) as LookupFunction
