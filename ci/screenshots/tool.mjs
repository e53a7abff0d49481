// Screenshot of one xprof tool page (kernel_stats, memory_profile, …) in headless Chromium.
// xprof's table and chart views load Google Charts from www.gstatic.com, which this machine
// cannot reach: that request is answered with gviz-standin.js (plain tables and line charts),
// so the pictures say so. Run by ci/tool-screenshot.sh; not part of the tests.
// Usage: node tool.mjs <XPROF_URL> <RUN> <TOOL> <OUT.png>
import { chromium } from "playwright-core";
import { readFileSync } from "node:fs";

const [xprof, run, tool, out] = process.argv.slice(2);
const standin = readFileSync(new URL("./gviz-standin.js", import.meta.url));
const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
const height = Number(process.env.HEIGHT || 1000);
const page = await browser.newPage({ viewport: { width: 1600, height } });
page.on("console", (m) => { if (process.env.DEBUG) console.log("console:", m.type(), m.text()); });
page.on("requestfailed", (r) => { if (process.env.DEBUG) console.log("failed:", r.url()); });
await page.route(/gstatic\.com/, (route) =>
  route.fulfill({ status: 200, contentType: "application/javascript", body: standin }));
await page.goto(new URL(`/?run=${encodeURIComponent(run)}&tool=${tool}`, xprof).href,
                { waitUntil: "networkidle" });
await page.waitForTimeout(6000);
await page.screenshot({ path: out });
console.log(`wrote ${out}`);
await browser.close();
