/**
 * Which network addresses WebFetch must not reach without an explicit rule: loopback, private
 * networks, link-local, and the other ranges that lead back into the machine or its LAN
 * (this network, shared address space, multicast, reserved; IPv6 loopback, unique-local,
 * link-local, and IPv4 addresses embedded in IPv6).
 */
import { isIP } from "node:net"

export type AddressClass = "public" | "loopback" | "private" | "link-local" | "reserved"

/** An IPv4 address as a 32-bit number, or undefined. */
const ipv4ToNumber = (address: string): number | undefined => {
  const parts = address.split(".")
  if (parts.length !== 4) return undefined
  let value = 0
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part)) return undefined
    const n = Number(part)
    if (n > 255) return undefined
    value = value * 256 + n
  }
  return value
}

const inV4 = (value: number, base: string, bits: number): boolean => {
  const start = ipv4ToNumber(base)!
  const size = 2 ** (32 - bits)
  return value >= start && value < start + size
}

const classifyV4 = (address: string): AddressClass => {
  const v = ipv4ToNumber(address)
  if (v === undefined) return "reserved"
  if (inV4(v, "127.0.0.0", 8)) return "loopback"
  if (inV4(v, "0.0.0.0", 8)) return "loopback" // "this network": 0.0.0.0 reaches the local host
  if (inV4(v, "10.0.0.0", 8) || inV4(v, "172.16.0.0", 12) || inV4(v, "192.168.0.0", 16)) return "private"
  if (inV4(v, "100.64.0.0", 10)) return "private" // carrier-grade NAT
  if (inV4(v, "169.254.0.0", 16)) return "link-local" // includes cloud metadata endpoints
  if (inV4(v, "192.0.0.0", 24) || inV4(v, "198.18.0.0", 15) || inV4(v, "224.0.0.0", 4) || inV4(v, "240.0.0.0", 4)) {
    return "reserved"
  }
  return "public"
}

/** The eight 16-bit groups of an IPv6 address (with an embedded IPv4 tail expanded), or undefined. */
const ipv6Groups = (address: string): ReadonlyArray<number> | undefined => {
  let text = address.toLowerCase()
  const zone = text.indexOf("%")
  if (zone !== -1) text = text.slice(0, zone)
  const tailV4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)
  if (tailV4 !== null) {
    const v = ipv4ToNumber(tailV4[1]!)
    if (v === undefined) return undefined
    text = `${text.slice(0, tailV4.index)}${Math.floor(v / 65536).toString(16)}:${(v % 65536).toString(16)}`
  }
  const halves = text.split("::")
  if (halves.length > 2) return undefined
  const parse = (part: string) => (part === "" ? [] : part.split(":").map((g) => Number.parseInt(g, 16)))
  const head = parse(halves[0]!)
  const tail = halves.length === 2 ? parse(halves[1]!) : []
  const missing = 8 - head.length - tail.length
  if (halves.length === 1 ? missing !== 0 : missing < 0) return undefined
  const groups = [...head, ...Array.from({ length: halves.length === 2 ? missing : 0 }, () => 0), ...tail]
  return groups.some((g) => !Number.isInteger(g) || g < 0 || g > 0xffff) ? undefined : groups
}

const v4FromGroups = (high: number, low: number): string => [high >> 8, high & 0xff, low >> 8, low & 0xff].join(".")

const classifyV6 = (address: string): AddressClass => {
  const g = ipv6Groups(address)
  if (g === undefined) return "reserved"
  const zeroPrefix = (n: number) => g.slice(0, n).every((x) => x === 0)
  if (zeroPrefix(7) && g[7] === 1) return "loopback"
  if (zeroPrefix(8)) return "loopback" // the unspecified address reaches the local host
  if (zeroPrefix(5) && g[5] === 0xffff) return classifyV4(v4FromGroups(g[6]!, g[7]!)) // IPv4-mapped
  if (zeroPrefix(6)) return classifyV4(v4FromGroups(g[6]!, g[7]!)) // IPv4-compatible (deprecated)
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) {
    return classifyV4(v4FromGroups(g[6]!, g[7]!)) // NAT64
  }
  if ((g[0]! & 0xfe00) === 0xfc00) return "private" // fc00::/7 unique local
  if ((g[0]! & 0xffc0) === 0xfe80) return "link-local"
  if ((g[0]! & 0xffc0) === 0xfec0) return "private" // deprecated site-local
  if ((g[0]! & 0xff00) === 0xff00) return "reserved" // multicast
  if (g[0] === 0x2002) return classifyV4(v4FromGroups(g[1]!, g[2]!)) // 6to4 embeds an IPv4 address
  return "public"
}

/** The class of an IP address literal; undefined when `address` is not one. */
export const classifyAddress = (address: string): AddressClass | undefined => {
  const bare = address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address
  const kind = isIP(bare.split("%")[0]!)
  if (kind === 4) return classifyV4(bare)
  if (kind === 6) return classifyV6(bare)
  return undefined
}

export const isInternal = (kind: AddressClass): boolean => kind !== "public"

export const describeClass = (kind: AddressClass): string =>
  kind === "loopback"
    ? "a loopback address"
    : kind === "private"
    ? "a private network address"
    : kind === "link-local"
    ? "a link-local address"
    : kind === "reserved"
    ? "a reserved address"
    : "a public address"

/** Host names that always mean this machine (RFC 6761), whatever DNS says. */
export const isLocalhostName = (host: string): boolean => host === "localhost" || host.endsWith(".localhost")
