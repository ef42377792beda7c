/**
 * Makes the instances of `standIn` pass for instances of a Web class (`Request`, `Response`): the
 * prototype is linked to `base.prototype` (so `instanceof` holds), and every member of `base` that
 * `standIn` does not define itself is answered by the real object that `real(instance)` builds.
 * The stand-in serves its cheap members directly and builds the real object only when asked for
 * anything else.
 *
 * @module
 */
export function standIn(
  standInClass: { prototype: object },
  base: { prototype: object },
  real: (instance: never) => object,
): void {
  const proto = standInClass.prototype;
  Object.setPrototypeOf(proto, base.prototype);
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
