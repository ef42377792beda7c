/**
 * The resource identifier (RFC 8707, RFC 9728) a request addresses, and what follows from it:
 * where its Protected Resource Metadata is, and that document. Fixed when `auth.resource` is a
 * URL. When it is a path (`/mcp`), built per origin from the URL the client addressed (behind
 * the proxies `trustProxy` trusts, with their forwarded scheme and host), and only for the hosts
 * `allowedHosts` lists: the identifier is the audience tokens must carry, so a host nobody
 * listed (a loopback name, a rebinding name) must never become one, or a token minted for
 * another server on that name would be accepted here.
 *
 * @module
 */

/** What the resource server says of itself to a request. */
export interface ResourceFacts {
  /** The resource identifier: the metadata's `resource`, the audience tokens must carry. */
  readonly resource: string;
  /** The metadata document's URL, named by every challenge (`resource_metadata`). */
  readonly metadataUrl: string;
  /** The Protected Resource Metadata document, serialized. */
  readonly document: string;
}

/** The fields of the metadata document besides `resource`. */
export interface MetadataFields {
  readonly authorizationServers: readonly string[];
  readonly scopesSupported?: readonly string[];
  readonly resourceName?: string;
}

const WELL_KNOWN = '/.well-known/oauth-protected-resource';

/** Origins whose facts are kept (a server has a few names and schemes; others are built anew). */
const MAX_ORIGINS = 16;

export class ResourceIdentity {
  /** True when the facts depend on the URL each request addressed (`resource` is a path). */
  readonly addressed: boolean;
  /** The paths the metadata document is served at: path-suffixed (RFC 9728 §3.1) and bare. */
  readonly metadataPaths: ReadonlySet<string>;
  readonly #fixed: ResourceFacts | undefined;
  readonly #path: string;
  readonly #suffix: string;
  readonly #fields: MetadataFields;
  readonly #hosts: ReadonlySet<string>;
  readonly #byOrigin = new Map<string, ResourceFacts>();

  constructor(
    resource: string,
    fields: MetadataFields,
    allowedHosts: readonly string[] | '*' | undefined,
  ) {
    this.addressed = resource.startsWith('/');
    this.#fields = fields;
    if (this.addressed) {
      if (resource.startsWith('//'))
        throw new TypeError(`auth.resource: ${resource} is neither a URL nor a path`);
      if (!Array.isArray(allowedHosts) || allowedHosts.length === 0)
        throw new TypeError(
          'auth.resource as a path (the URL each client addressed) needs allowedHosts to list the names it may be built on',
        );
      this.#path = resource;
      this.#hosts = new Set(allowedHosts.map((host) => host.toLowerCase()));
    } else {
      this.#path = new URL(resource).pathname;
      this.#hosts = new Set();
    }
    this.#suffix = this.#path === '/' ? '' : this.#path.replace(/\/$/, '');
    this.metadataPaths = new Set([`${WELL_KNOWN}${this.#suffix}`, WELL_KNOWN]);
    this.#fixed = this.addressed ? undefined : this.#facts(new URL(resource).origin, resource);
  }

  /**
   * The facts for a request that addressed `url` (read only when `addressed`); `undefined` when
   * its host is not one `allowedHosts` lists.
   */
  of(url: string): ResourceFacts | undefined {
    if (this.#fixed !== undefined) return this.#fixed;
    const start = url.indexOf('//') + 2;
    const slash = url.indexOf('/', start);
    const origin = slash === -1 ? url : url.slice(0, slash);
    const known = this.#byOrigin.get(origin);
    if (known !== undefined) return known;
    let parsed: URL;
    try {
      parsed = new URL(origin);
    } catch {
      return undefined;
    }
    if (!this.#hosts.has(parsed.host) && !this.#hosts.has(parsed.hostname)) return undefined;
    const facts = this.#facts(parsed.origin, `${parsed.origin}${this.#path}`);
    if (this.#byOrigin.size >= MAX_ORIGINS) this.#byOrigin.clear();
    this.#byOrigin.set(origin, facts);
    return facts;
  }

  #facts(origin: string, resource: string): ResourceFacts {
    const fields = this.#fields;
    const document: Record<string, unknown> = {
      resource,
      authorization_servers: fields.authorizationServers,
      bearer_methods_supported: ['header'],
    };
    if (fields.scopesSupported) document.scopes_supported = fields.scopesSupported;
    if (fields.resourceName) document.resource_name = fields.resourceName;
    return {
      resource,
      metadataUrl: `${origin}${WELL_KNOWN}${this.#suffix}`,
      document: JSON.stringify(document),
    };
  }
}
