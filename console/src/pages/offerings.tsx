import { type AppOfferings, type Audience, get } from '../api';
import { CopyableCommand, Empty, Show, Table, useLoad } from '../ui';

/** The admin commands that set what the app shows, as an operator runs them beside `npm start`. */
export const OFFERINGS_PUT_COMMAND = 'npm run --silent admin -- offerings put --app APP_ID --file offerings.json';
export const SWITCHES_PUT_COMMAND = 'npm run --silent admin -- switches put --app APP_ID --file switches.json';
export const PAYWALLS_UPLOAD_COMMAND =
  'npm run --silent admin -- paywalls upload --app APP_ID --id PAYWALL_ID --file bundle.zip';

const none = <span class="hint">none</span>;

/** Who a rule is for, in words: "segment gold_members on ios". */
const audienceText = (audience: Audience): string =>
  [audience.segment && `segment ${audience.segment}`, audience.platform && `on ${audience.platform}`]
    .filter(Boolean)
    .join(' ');

const valueText = (value: unknown): string => JSON.stringify(value);

function Rules({ rules, then }: { rules: readonly { audience: Audience }[]; then: (index: number) => string }) {
  if (rules.length === 0) return <span class="hint">none</span>;
  return (
    <ol>
      {rules.map((rule, i) => (
        <li key={i}>
          {audienceText(rule.audience)} → {then(i)}
        </li>
      ))}
    </ol>
  );
}

function OfferingsTables({ data }: { data: AppOfferings }) {
  return (
    <>
      <h2>Offerings</h2>
      {data.offerings.length === 0 ? (
        <div data-testid="offerings-empty">
          <Empty>No offerings yet. Set them from a terminal in the project's folder:</Empty>
          <CopyableCommand command={OFFERINGS_PUT_COMMAND} />
        </div>
      ) : (
        <Table
          testId="offerings"
          columns={['Offering', 'Packages (product per platform)', 'Description', 'Paywall']}
          rows={data.offerings}
          row={(offering) => (
            <tr key={offering.id}>
              <td>
                <code>{offering.id}</code>
                {offering.id === data.current_offering_id && <em> (current)</em>}
              </td>
              <td>
                <ul>
                  {offering.packages.map((pkg) => (
                    <li key={pkg.id}>
                      <code>{pkg.id}</code>:{' '}
                      {Object.entries(pkg.products)
                        .map(([platform, product]) => `${platform} ${product}`)
                        .join(', ')}
                    </li>
                  ))}
                </ul>
              </td>
              <td>{offering.description}</td>
              <td>{offering.paywall ? <code>{offering.paywall}</code> : none}</td>
            </tr>
          )}
        />
      )}
      {data.placements.length > 0 && (
        <>
          <h2>Placements</h2>
          <Table
            testId="placements"
            columns={['Placement', 'Rules (first match wins)', 'Default', 'Guide page']}
            rows={data.placements}
            row={(placement) => (
              <tr key={placement.id}>
                <td>
                  <code>{placement.id}</code>
                </td>
                <td>
                  <Rules
                    rules={placement.rules}
                    then={(i) => {
                      const rule = placement.rules[i]!;
                      return rule.guide_page ? `${rule.offering}, guide ${rule.guide_page.id}` : rule.offering;
                    }}
                  />
                </td>
                <td>
                  <code>{placement.default}</code>
                </td>
                <td>
                  {placement.guide_page ? (
                    <>
                      <code>{placement.guide_page.id}</code> ({placement.guide_page.pages} page
                      {placement.guide_page.pages === 1 ? '' : 's'}
                      {placement.guide_page.purchase ? ', sells' : ''})
                    </>
                  ) : (
                    none
                  )}
                </td>
              </tr>
            )}
          />
        </>
      )}
      <h2>Paywalls and guide pages</h2>
      {data.paywalls.length === 0 ? (
        <div data-testid="paywalls-empty">
          <Empty>No paywall or guide page bundles yet. Upload a zip with index.html at its root:</Empty>
          <CopyableCommand command={PAYWALLS_UPLOAD_COMMAND} />
        </div>
      ) : (
        <Table
          testId="paywalls"
          columns={['Bundle', 'Name', 'Version', 'Files', 'Size', 'Uploaded']}
          rows={data.paywalls}
          row={(paywall) => (
            <tr key={paywall.id}>
              <td>
                {paywall.download_url ? (
                  <a href={paywall.download_url}>
                    <code>{paywall.id}</code>
                  </a>
                ) : (
                  <code>{paywall.id}</code>
                )}
              </td>
              <td>{paywall.name}</td>
              <td>{paywall.version}</td>
              <td>{paywall.files}</td>
              <td>{(paywall.bytes / 1024).toFixed(1)} KB</td>
              <td>{new Date(paywall.uploaded_at).toLocaleString()}</td>
            </tr>
          )}
        />
      )}
      <h2>Remote switches</h2>
      {data.switches.length === 0 ? (
        <div data-testid="switches-empty">
          <Empty>No remote switches yet. Set them from a terminal in the project's folder:</Empty>
          <CopyableCommand command={SWITCHES_PUT_COMMAND} />
        </div>
      ) : (
        <Table
          testId="switches"
          columns={['Switch', 'Type', 'Value', 'Rules (first match wins)', 'Description']}
          rows={data.switches}
          row={(entry) => (
            <tr key={entry.key}>
              <td>
                <code>{entry.key}</code>
              </td>
              <td>{entry.type}</td>
              <td>
                <code>{valueText(entry.value)}</code>
              </td>
              <td>
                <Rules rules={entry.rules} then={(i) => valueText(entry.rules[i]!.value)} />
              </td>
              <td>{entry.description}</td>
            </tr>
          )}
        />
      )}
      {data.updated_at && <p class="hint">Last set {new Date(data.updated_at).toLocaleString()}.</p>}
    </>
  );
}

/** What the app shows (GET /v1/offerings): offerings, placements, paywall bundles and remote switches, as stored. */
export function Offerings() {
  const loaded = useLoad(() => get<{ data: AppOfferings }>('/v1/offerings'), []);
  return (
    <section>
      <h1>Offerings</h1>
      <Show loaded={loaded} what="what the app shows">
        {({ data }) => <OfferingsTables data={data} />}
      </Show>
    </section>
  );
}
