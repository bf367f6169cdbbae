import { type ComponentType, createElement, lazy, useState } from 'react';

/**
 * A page in a chunk of its own that can be loaded ahead of a visit. Once loaded, a visit draws it at
 * once; a `lazy` page would suspend for a tick every first visit, and React then holds the content
 * back until 300 ms after the fallback showed (its fallback throttle), longer than most answers take.
 */
export function preloadablePage(load: () => Promise<{ default: ComponentType }>) {
  let loaded: ComponentType | null = null;
  const preload = () =>
    load().then((module) => {
      loaded = module.default;
      return module;
    });
  const Lazy = lazy(preload);
  function Page() {
    // Decided once per visit: a page drawn through Lazy keeps its state when the chunk arrives.
    const [component] = useState(() => loaded ?? Lazy);
    return createElement(component);
  }
  return { Page, preload };
}
