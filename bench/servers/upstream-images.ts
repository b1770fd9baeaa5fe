/**
 * The bench upstream's image calls, answered as an OpenAI-compatible server does:
 * `/images/generations` (JSON) and `/images/edits` (multipart, the image as a file) both
 * answer `{created, data: [{b64_json}]}` with `n` PNGs of the `size` asked, so svc passes
 * them through without resizing. The PNG is built once per size: a smooth gradient with
 * light noise, about the weight of a generated picture (1.2 MB at 1024 x 1024).
 */
import sharp from 'sharp';

const answers = new Map<string, Promise<string>>();

/** The JSON answer for `size` ("WxH"), base64 PNG inside; cached per size. */
function answerFor(size: string): Promise<string> {
  let answer = answers.get(size);
  if (!answer) {
    const m = /^(\d+)x(\d+)$/.exec(size);
    const [width, height] = m ? [Number(m[1]), Number(m[2])] : [1024, 1024];
    answer = picture(width, height).then((png) => png.toString('base64'));
    answers.set(size, answer);
  }
  return answer;
}

/** A gradient with one bit of noise per channel: compresses like a photo-ish picture, not like a flat fill. */
function picture(width: number, height: number): Promise<Buffer> {
  const raw = Buffer.alloc(width * height * 3);
  let x = 2463534242;
  for (let i = 0; i < raw.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    const px = (i / 3) | 0;
    raw[i] = ((((px % width) + ((px / width) | 0)) * (1 + (i % 3))) & 0xfe) | (x & 1);
  }
  return sharp(raw, { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();
}

/** Answers one image call; `path` is what follows `/images/`. */
export async function imageCall(req: Request, path: string): Promise<Response> {
  let size = '1024x1024';
  let n = 1;
  if (path === 'edits') {
    const form = await req.formData();
    size = String(form.get('size') ?? size);
  } else {
    const body = (await req.json()) as { size?: string; n?: number };
    size = body.size ?? size;
    n = body.n ?? 1;
  }
  const b64 = await answerFor(size);
  const data = Array.from({ length: n }, () => `{"b64_json":"${b64}"}`).join(',');
  return new Response(`{"created":${Math.floor(Date.now() / 1000)},"data":[${data}]}`, { headers: { 'content-type': 'application/json' } });
}
