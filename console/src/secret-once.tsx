import { useEffect, useRef, useState } from 'preact/hooks';

/** A new key's secret, shown once, with a copy button (a new key, or a new account's ADMIN key). */
export function SecretOnce({ title, secret, onDone }: { title: string; secret: string; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  const field = useRef<HTMLInputElement>(null);
  useEffect(() => field.current?.select(), []);
  async function copy() {
    try {
      await navigator.clipboard.writeText(secret);
    } catch {
      // Without clipboard access (plain http on another host) the text stays selected for Ctrl+C.
      field.current?.select();
      document.execCommand('copy');
    }
    setCopied(true);
  }
  return (
    <div class="panel secret" role="region" aria-labelledby="secret-title">
      <h2 id="secret-title">{title}</h2>
      <p>Copy the secret now: it is shown only once and cannot be retrieved later.</p>
      <div class="copy-row">
        <label class="sr-only" for="new-secret">
          New API key secret
        </label>
        <input id="new-secret" ref={field} class="mono" readOnly value={secret} />
        <button type="button" onClick={copy}>
          {copied ? 'Copied' : 'Copy'}
        </button>
      </div>
      <button type="button" class="secondary" onClick={onDone}>
        I have stored it
      </button>
    </div>
  );
}
