/**
 * What a skill registration compiles to (the skills extension, SEP-2640): its files checked
 * against the extension's rules and limits, mapped to `skill://` URIs, their sizes counted, and
 * its entry (front matter and the manifest of SHA-256 digests) made once, on first need, with Web
 * Crypto.
 *
 * @module
 */
import { SkillError } from '../errors.ts';
import { SKILLS } from '../protocol/constants.ts';
import type { JsonObject } from '../protocol/jsonrpc.ts';
import { optionKeys } from '../schema/option-keys.ts';
import { frontMatterOf } from './front-matter.ts';
import { checkOptions } from './registration-checks.ts';
import { strip } from './strip.ts';

/**
 * A skill's files by their path in the skill's folder (`SKILL.md`, `references/FORMS.md`): text,
 * or bytes (served as text when their type is textual and they are UTF-8, else as a blob).
 */
export type SkillFiles = Readonly<Record<string, string | Uint8Array>>;

export interface SkillOptions {
  /**
   * Folders the skill sits under, before its name: `acme/billing` serves the skill `refunds` at
   * `skill://acme/billing/refunds/SKILL.md`. @default none (`skill://refunds/SKILL.md`)
   */
  prefix?: string;
  /** The `mimeType` of files by path, where the one guessed from the extension is wrong. */
  mimeTypes?: Readonly<Record<string, string>>;
  /**
   * Scopes a caller's token must grant to get the skill or read its files (with authorization
   * on); without them a call is answered 403. @default none
   */
  scopes?: readonly string[];
}

/** The names `skill()` accepts in its options. */
export const SKILL_OPTION_KEYS = optionKeys<SkillOptions>()(['prefix', 'mimeTypes', 'scopes']);

/** One file of a skill, as `resources/read` and `resources/directory/read` serve it. */
export interface SkillFile {
  readonly uri: string;
  /** What a read answers: text, or bytes (a base64 blob). */
  readonly content: string | Uint8Array;
  readonly bytes: Uint8Array;
  readonly mimeType: string;
  /** Its `Resource` as lists send it. */
  readonly definition: JsonObject;
}

export interface SkillEntry {
  /** The `SKILL.md` URI, which names the skill. */
  readonly uri: string;
  /** The skill's folder, `uri` without `/SKILL.md`. */
  readonly root: string;
  readonly scopes: readonly string[] | undefined;
  /** `SKILL.md` first. */
  readonly files: readonly SkillFile[];
  /** The `Skill` object of `skills/list` and `skills/get` (digests made on the first call). */
  entry(): Promise<JsonObject>;
}

const encoder = new TextEncoder();

/** Checks a skill's files and options and maps them to resources; throws `SkillError`. */
export function skillEntry(files: SkillFiles, options: SkillOptions): SkillEntry {
  checkOptions(options, 'skill', SKILL_OPTION_KEYS);
  if (typeof files !== 'object' || files === null)
    throw new TypeError('skill: files must be an object of paths to contents');
  const manifest = manifestOf(files);
  const root = `skill://${prefixOf(options.prefix)}${manifest.name}`;
  const out = skillFiles(root, files, manifest, options);
  let made: Promise<JsonObject> | undefined;
  const uri = `${root}/${SKILLS.manifest}`;
  const make = async (): Promise<JsonObject> => ({
    uri,
    frontmatter: manifest.frontmatter,
    resources: await Promise.all(
      out.map(async (file) => ({
        uri: file.uri,
        digest: await digestOf(file.bytes),
        size: file.bytes.byteLength,
      })),
    ),
  });
  return {
    uri,
    root,
    scopes: options.scopes,
    files: out,
    entry: () => {
      made ??= make().catch((error: unknown) => {
        made = undefined;
        throw error;
      });
      return made;
    },
  };
}

/** A skill's `SKILL.md`: its text and front matter, with the name and description checked. */
interface Manifest {
  markdown: string;
  frontmatter: JsonObject;
  name: string;
  description: string;
}

function manifestOf(files: SkillFiles): Manifest {
  const manifest = files[SKILLS.manifest];
  if (manifest === undefined)
    throw new SkillError('frontmatter', `A skill needs a ${SKILLS.manifest} at its root`);
  const markdown = typeof manifest === 'string' ? manifest : decodeUtf8(manifest);
  if (markdown === undefined)
    throw new SkillError('frontmatter', `${SKILLS.manifest} is not UTF-8 text`);
  const frontmatter = frontMatterOf(markdown, SKILLS.manifest);
  const { name, description } = frontmatter;
  if (typeof name !== 'string' || !SKILLS.name.test(name))
    throw new SkillError(
      'name',
      `Skill name ${JSON.stringify(name)}: use 1-64 of lowercase letters, digits and single hyphens, not at either end`,
    );
  if (
    typeof description !== 'string' ||
    description === '' ||
    description.length > SKILLS.maxDescriptionLength
  )
    throw new SkillError(
      'frontmatter',
      `Skill ${name}: its description must be a string of 1-${SKILLS.maxDescriptionLength} characters`,
    );
  return { markdown, frontmatter, name, description };
}

/** The skill's files as resources under `root`, `SKILL.md` first, within the extension's bounds. */
function skillFiles(
  root: string,
  files: SkillFiles,
  { markdown, name, description }: Manifest,
  options: SkillOptions,
): SkillFile[] {
  const paths = Object.keys(files);
  if (paths.length > SKILLS.maxResources)
    throw new SkillError(
      'resources',
      `Skill ${name} has ${paths.length} files; the skills extension allows ${SKILLS.maxResources}`,
    );
  const out: SkillFile[] = [];
  let total = 0;
  // SKILL.md first: its entry leads the manifest, and the directory lists it first.
  for (const path of [SKILLS.manifest, ...paths.filter((p) => p !== SKILLS.manifest)]) {
    const raw = path === SKILLS.manifest ? markdown : (files[path] as string | Uint8Array);
    const file = skillFile(root, path, raw, options.mimeTypes?.[path], name);
    total += file.bytes.byteLength;
    if (total > SKILLS.maxTotalBytes)
      throw new SkillError(
        'size',
        `Skill ${name} holds more than ${SKILLS.maxTotalBytes} bytes; the skills extension allows no more`,
      );
    out.push(
      path === SKILLS.manifest
        ? { ...file, definition: { ...file.definition, name, description } }
        : file,
    );
  }
  return out;
}

/** `a/b/` from the `prefix` option `a/b`; each segment must be a plain URI segment. */
function prefixOf(prefix: string | undefined): string {
  if (prefix === undefined || prefix === '') return '';
  const segments = typeof prefix === 'string' ? prefix.split('/') : [];
  if (
    segments.length === 0 ||
    segments.some((s) => !plainSegment(s) || s !== encodeURIComponent(s))
  )
    throw new SkillError(
      'name',
      `Skill prefix ${JSON.stringify(prefix)}: use /-separated segments of letters, digits and -._~!*'()`,
    );
  return `${segments.join('/')}/`;
}

function plainSegment(segment: string): boolean {
  return segment !== '' && segment !== '.' && segment !== '..';
}

function skillFile(
  root: string,
  path: string,
  raw: string | Uint8Array,
  mimeType: string | undefined,
  name: string,
): SkillFile {
  const segments = path.split('/');
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses.
  if (!segments.every(plainSegment) || /[\\\u0000-\u001f]/.test(path))
    throw new SkillError(
      'path',
      `Skill ${name}: ${JSON.stringify(path)} is not a relative path of plain / separated segments`,
    );
  if (typeof raw !== 'string' && !(raw instanceof Uint8Array))
    throw new TypeError(`Skill ${name}: ${path} must be a string or a Uint8Array`);
  const uri = `${root}/${segments.map(encodeURIComponent).join('/')}`;
  const type = mimeType ?? guessType(path, typeof raw === 'string');
  const bytes = typeof raw === 'string' ? encoder.encode(raw) : raw;
  const text = typeof raw === 'string' ? raw : textual(type) ? decodeUtf8(raw) : undefined;
  const definition = strip({
    uri,
    name: segments[segments.length - 1],
    mimeType: type,
    size: bytes.byteLength,
  });
  return { uri, content: text ?? bytes, bytes, mimeType: type, definition };
}

/** `sha256:` and the lowercase hex SHA-256 of `bytes`, as the extension writes digests. */
export async function digestOf(bytes: Uint8Array): Promise<string> {
  const hash = new Uint8Array(
    await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>),
  );
  let hex = '';
  for (const byte of hash) hex += byte.toString(16).padStart(2, '0');
  return `sha256:${hex}`;
}

function decodeUtf8(bytes: Uint8Array): string | undefined {
  try {
    // ignoreBOM keeps a byte order mark in the text, so the text encodes back to the same bytes.
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

const TYPES: Readonly<Record<string, string>> = {
  md: 'text/markdown',
  markdown: 'text/markdown',
  txt: 'text/plain',
  py: 'text/x-python',
  sh: 'text/x-shellscript',
  js: 'text/javascript',
  mjs: 'text/javascript',
  ts: 'text/x-typescript',
  html: 'text/html',
  css: 'text/css',
  csv: 'text/csv',
  json: 'application/json',
  yaml: 'application/yaml',
  yml: 'application/yaml',
  toml: 'application/toml',
  xml: 'application/xml',
  svg: 'image/svg+xml',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  pdf: 'application/pdf',
};

function guessType(path: string, text: boolean): string {
  const dot = path.lastIndexOf('.');
  const known = dot > path.lastIndexOf('/') ? TYPES[path.slice(dot + 1).toLowerCase()] : undefined;
  return known ?? (text ? 'text/plain' : 'application/octet-stream');
}

function textual(type: string): boolean {
  return (
    type.startsWith('text/') ||
    /^application\/(?:json|yaml|toml|xml|javascript)$/.test(type) ||
    /\+(?:json|xml)$/.test(type)
  );
}
