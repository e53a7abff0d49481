// Screenshot of xprof's trace viewer with its flow events (launch and dependency arrows) shown:
// opens the run's trace viewer, opens the "Flow events" menu and picks the option that draws
// every arrow. Run by ci/tool-screenshot.sh with TOOL=trace_arrows; not part of the tests.
// Usage: node trace-arrows.mjs <XPROF_URL> <RUN> <OUT.png>
import { chromium } from "playwright-core";

const [xprof, run, out] = process.argv.slice(2);
const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
await page.goto(new URL(`/?run=${encodeURIComponent(run)}&tool=trace_viewer@`, xprof).href,
                { waitUntil: "networkidle" });
await page.waitForTimeout(5000);
const frames = [page, ...page.frames()];
let clicked = false;
for (const f of frames) {
  const b = f.getByText("Flow events", { exact: true });
  if (await b.count()) { await b.first().click(); clicked = true; break; }
}
await page.waitForTimeout(1000);
if (process.env.MENU_SHOT) await page.screenshot({ path: process.env.MENU_SHOT });
for (const f of [page, ...page.frames()]) {
  for (const label of [/show all/i, /all flow/i, /^all$/i]) {
    const o = f.getByText(label);
    if (await o.count()) { await o.first().click(); break; }
  }
}
await page.waitForTimeout(3000);
await page.screenshot({ path: out });
console.log(`wrote ${out} (menu ${clicked ? "opened" : "not found"})`);
await browser.close();
