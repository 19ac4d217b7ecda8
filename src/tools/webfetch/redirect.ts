/** What the model reads when a page redirects to another host. */
export const redirectMessage = (redirect: {
  readonly originalUrl: string
  readonly redirectUrl: string
  readonly code: number
  readonly codeText: string
  readonly prompt: string
}): string =>
  `REDIRECT DETECTED: The URL redirects to a different host.

Original URL: ${redirect.originalUrl}
Redirect URL: ${redirect.redirectUrl}
Status: ${redirect.code}${redirect.codeText === "" ? "" : ` ${redirect.codeText}`}

To complete your request, I need to fetch content from the redirected URL. Please use WebFetch again with these parameters:
- url: "${redirect.redirectUrl}"
- prompt: "${redirect.prompt}"`
