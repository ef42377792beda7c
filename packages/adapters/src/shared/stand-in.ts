/**
 * Makes the instances of `standIn` pass for instances of a Web class (`Request`, `Response`): the
 * prototype is linked to `base.prototype` (so `instanceof` holds), and every member of `base` that
 * `standIn` does not define itself is answered by the real object that `real(instance)` builds.
 * The stand-in serves its cheap members directly and builds the real object only when asked for
 * anything else. `probe`, a genuine instance, lends the internal slots the runtime reads directly.
 *
 * @module
 */
export function standIn(
  standInClass: { prototype: object },
  base: { prototype: object },
  real: (instance: never) => object,
  probe?: object,
): void {
  const proto = standInClass.prototype;
  Object.setPrototypeOf(proto, base.prototype);
  // The runtime's own code may read the internal slots of an object that passes `instanceof`
  // (Node's `new Request(input, init)` reads `input`'s state under symbol keys): those slots,
  // found on `probe`, a genuine instance, are answered by the real object too.
  for (const key of probe ? Object.getOwnPropertySymbols(probe) : []) {
    Object.defineProperty(proto, key, {
      configurable: true,
      get() {
        return (real(this as never) as Record<symbol, unknown>)[key];
      },
    });
  }
  for (const name of Object.getOwnPropertyNames(base.prototype)) {
    if (name === 'constructor' || Object.hasOwn(proto, name)) continue;
    const descriptor = Object.getOwnPropertyDescriptor(base.prototype, name);
    if (!descriptor) continue;
    if (typeof descriptor.value === 'function') {
      const method = descriptor.value as (...args: unknown[]) => unknown;
      Object.defineProperty(proto, name, {
        configurable: true,
        writable: true,
        value(...args: unknown[]) {
          return method.apply(real(this as never), args);
        },
      });
    } else if (descriptor.get) {
      const get = descriptor.get;
      Object.defineProperty(proto, name, {
        configurable: true,
        get() {
          return get.call(real(this as never));
        },
      });
    }
  }
}

/**
 * `standIn()` deferred to the first stand-in: call the returned function from the stand-in's
 * constructor. Reading the Web class is what costs: on Node 20 the first read of the global
 * `Request` or `Response` loads undici (~35 ms, most of a cold start), and a server answering
 * through the core's fast entry never makes a stand-in. No instance exists before the link, so
 * nobody sees the prototype unlinked.
 */
export function standInOnFirstUse(
  standInClass: { prototype: object },
  base: () => { prototype: object },
  real: (instance: never) => object,
  probe?: () => object,
): () => void {
  let linked = false;
  return () => {
    if (linked) return;
    linked = true;
    standIn(standInClass, base(), real, probe?.());
  };
}
