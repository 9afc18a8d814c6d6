// <dp-sampler>: embeds a dpmcmc demo in a documentation page.
//
//   <script src="https://APP.example.org/dp-sampler.js" defer></script>
//   <dp-sampler demo="banana" algorithm="dp-penalty" epsilon="2"></dp-sampler>
//
// A classic script (no CORS needed) that defines the element; each element
// renders an <iframe> of embed.html from the same place as this script, with
// the attributes as URL parameters (demo, algorithm, epsilon, chains,
// autorun; height and loading go to the iframe). The demo runs inside the
// iframe, under the app's own policy; the documentation page must allow that origin in frame-src, and
// the app must list the documentation origin in frame-ancestors
// (dpmcmc serve --frame-ancestors ORIGIN).
(() => {
  const base = document.currentScript?.src ?? location.href;
  const PARAMS = ['demo', 'algorithm', 'epsilon', 'chains', 'autorun'];

  class DPSampler extends HTMLElement {
    static get observedAttributes() { return [...PARAMS, 'height']; }

    connectedCallback() { this.render(); }

    attributeChangedCallback() { if (this.isConnected) this.render(); }

    render() {
      const url = new URL('embed.html', base);
      for (const p of PARAMS) {
        const v = this.getAttribute(p);
        if (v !== null) url.searchParams.set(p, v);
      }
      let frame = this.querySelector('iframe');
      if (!frame) {
        frame = document.createElement('iframe');
        frame.setAttribute('referrerpolicy', 'no-referrer');
        frame.width = '100%';
        frame.style.border = '0';
        frame.style.display = 'block';
        this.replaceChildren(frame);
      }
      frame.title = this.getAttribute('title') ?? `dpmcmc demo: ${url.searchParams.get('demo') ?? 'banana'}`;
      frame.height = this.getAttribute('height') ?? '520';
      frame.loading = this.getAttribute('loading') ?? 'eager';
      if (frame.src !== url.href) frame.src = url.href;
    }
  }

  if (!customElements.get('dp-sampler')) customElements.define('dp-sampler', DPSampler);
})();
