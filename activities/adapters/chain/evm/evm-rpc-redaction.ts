/**
 * viem puts the node's URL into its error messages, and an RPC URL often carries an API key
 * (settings treat it as a secret): errors leave the EVM adapters with the URL replaced.
 */
export async function redactingRpcUrls<T>(rpcUrls: ReadonlySet<string>, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof Error)) throw error;
    // Longest first: a URL's credential-free form is part of the full one.
    const urls = [...rpcUrls].sort((a, b) => b.length - a.length).filter((url) => error.message.includes(url));
    if (urls.length === 0) throw error;
    const message = urls.reduce((text, url) => text.split(url).join('<EVM RPC URL>'), error.message);
    throw new Error(message);
  }
}

/** The URL as configured and as viem writes it in messages (credentials stripped). */
export function rpcUrlForms(rpcUrl: string): string[] {
  const forms = [rpcUrl];
  try {
    const url = new URL(rpcUrl);
    forms.push(`${url.protocol}//${url.host}${url.pathname}${url.search}`, `${url.host}${url.pathname}${url.search}`);
    if (url.pathname.length > 1) forms.push(`${url.pathname}${url.search}`);
  } catch {
    // assertEvmNetworkConfig refuses such a URL anyway.
  }
  return [...new Set(forms)];
}
