/** toolgate's version, as `toolgate --version` prints it. */
export const VERSION = "0.1.0"
