package agenttest

// The words of the demo swarm: one research question, split into topics a
// researcher each. Sources live under .example domains: the demo must look
// real without citing anyone for figures it made up.

const swarmQuestion = "Is it realistic for a city of about 500,000 people to run its entire bus fleet on batteries by 2030? " +
	"We run 320 diesel buses from two depots and get proper winters."

const swarmPlanIntro = "This needs several independent lines of evidence, so I'll split it into parallel research tracks " +
	"and bring the results together at the end. Tracks:"

const swarmPlanReasoning = "The question bundles technology (range in winter, charging), money (cost of ownership, funding), " +
	"infrastructure (grid, depots) and logistics (how fast buses can be bought). Those can be researched independently. " +
	"Cities that already switched are the best reality check, so one track should collect case studies. " +
	"I should keep the number of tracks small enough that I can still compare the answers."

type swarmSearch struct {
	query   string
	intro   string // what the researcher says before searching
	results []swarmResult
}

type swarmResult struct {
	Title   string `json:"title"`
	URL     string `json:"url"`
	Snippet string `json:"snippet"`
}

type swarmTopic struct {
	title     string // shown in the plan
	slug      string // used in step names
	brief     string // the task the supervisor hands over
	reasoning string // the researcher's private reasoning
	searches  []swarmSearch
	findings  string // the researcher's final answer
	summary   string // the summarizer's condensed version (also the delegate tool's result)
}

var swarmTopics = []swarmTopic{
	{
		title: "Range of battery buses in winter",
		slug:  "winter-range",
		brief: "Find out how much range battery-electric buses lose in cold weather and what operators do about it.",
		reasoning: "Range loss in winter comes mostly from cabin heating, not from the battery chemistry itself. " +
			"I need figures for heated buses at -10 °C to -20 °C, and whether diesel-fired auxiliary heaters are still used. " +
			"Operator reports are more useful than manufacturer brochures here.",
		searches: []swarmSearch{
			{
				query: "battery electric bus range loss cold weather heating operator data",
				intro: "Looking for operator data on winter range rather than manufacturer claims.",
				results: []swarmResult{
					{"Winter operation of 12 m battery buses: three seasons of data", "https://www.transit-research.example/reports/winter-ebus-2024",
						"Average energy use rose from 1.1 kWh/km in summer to 1.7 kWh/km below -10 °C, almost entirely due to cabin heating."},
					{"Heat pumps versus resistive heaters in city buses", "https://www.busengineering.example/articles/heat-pumps",
						"CO2 heat pumps cut heating energy by 40-50 % down to about -15 °C; below that, resistive heating takes over."},
				},
			},
			{
				query: "auxiliary diesel heater electric bus nordic operators",
				intro: "Checking how Nordic operators handle the coldest days.",
				results: []swarmResult{
					{"Nordic e-bus operations survey", "https://www.nordicmobility.example/survey/ebus-heating",
						"Most operators in the survey fitted biodiesel auxiliary heaters to keep range predictable on the coldest 20-30 days of the year."},
				},
			},
		},
		findings: "Winter is manageable but it changes the fleet size. Operator data shows energy use rising by roughly 50 % below -10 °C, " +
			"almost all of it for cabin heating. Heat pumps recover a good part of that down to about -15 °C. Many Nordic operators keep a small " +
			"biodiesel auxiliary heater for the coldest weeks. Plan blocks around winter range, not the brochure figure, and expect to need " +
			"10-15 % more buses than a one-for-one replacement of the diesel fleet.",
		summary: "Expect about 50 % more energy use below -10 °C, mostly heating; heat pumps help down to about -15 °C. " +
			"Size the fleet for winter: roughly 10-15 % more buses than today.",
	},
	{
		title: "Depot and on-route charging",
		slug:  "charging",
		brief: "Compare overnight depot charging with on-route (opportunity) charging for a 320-bus fleet on two depots.",
		reasoning: "Two depots with 160 buses each is the key constraint: depot charging needs space and a big grid connection per depot. " +
			"On-route pantographs reduce battery size but add sites, permits and dependence on timetables. " +
			"I should find typical charger power, buses per charger and the layout implications.",
		searches: []swarmSearch{
			{
				query: "depot charging versus opportunity charging electric bus fleet comparison",
				intro: "Comparing the two charging strategies first.",
				results: []swarmResult{
					{"Choosing a charging strategy for large bus fleets", "https://www.transit-research.example/guides/charging-strategy",
						"Depot-only charging works for blocks under about 250 km in winter; longer blocks need on-route top-ups or mid-day returns."},
					{"Pantograph charging at terminals: lessons from ten cities", "https://www.urbantransport.example/pantograph-lessons",
						"A 450 kW pantograph at a terminus adds 20-30 km of range in a 6-minute layover."},
				},
			},
			{
				query: "depot charger power buses per charger smart charging 150 kW",
				intro: "Now the numbers for depot charger sizing.",
				results: []swarmResult{
					{"Depot electrification handbook", "https://www.fleetpower.example/handbook/depots",
						"Typical depots use 100-150 kW chargers shared by two or three buses through sequential dispensers, managed by smart charging overnight."},
				},
			},
		},
		findings: "A mix is most likely: depot charging for the majority of blocks and a handful of terminus pantographs for the longest routes. " +
			"Depot-only works when winter blocks stay under about 250 km. Shared 100-150 kW dispensers with smart charging keep the peak demand " +
			"of each 160-bus depot in the range of 8-12 MW rather than the naive 24 MW.",
		summary: "Depot charging for most blocks, pantographs at a few termini for the long ones. Smart charging keeps each depot at about 8-12 MW.",
	},
	{
		title: "Total cost of ownership versus diesel",
		slug:  "cost",
		brief: "Estimate the 12-year total cost of ownership of a battery bus against a diesel bus, including energy and maintenance.",
		reasoning: "Purchase price is higher, energy and maintenance are lower. The result depends heavily on electricity tariffs, " +
			"battery replacement assumptions and utilisation. I'll look for recent TCO studies with their assumptions stated.",
		searches: []swarmSearch{
			{
				query: "electric bus total cost of ownership 12 years diesel comparison 2024 study",
				intro: "Searching for recent cost studies that state their assumptions.",
				results: []swarmResult{
					{"Bus TCO benchmark 2024", "https://www.mobilityeconomics.example/tco-2024",
						"Over 12 years, battery buses came within 5 % of diesel TCO at 60,000 km per year, and below diesel above 70,000 km."},
					{"Maintenance costs of electric city buses", "https://www.fleetpower.example/maintenance-costs",
						"Operators report 20-30 % lower maintenance cost per km, mainly from brakes and the absence of engine servicing."},
				},
			},
			{
				query: "depot electricity tariff bus fleet night charging cost per km",
				intro: "Energy prices decide most of the gap, so checking depot tariffs.",
				results: []swarmResult{
					{"What electric buses pay for power", "https://www.fleetpower.example/energy-prices",
						"With night-time depot tariffs, energy cost per km was 40-60 % below diesel; demand charges can erase half of that without smart charging."},
				},
			},
		},
		findings: "Cost is close to parity today and depends on utilisation. At typical city mileage (60,000-70,000 km a year) the 12-year " +
			"total cost of a battery bus is within about 5 % of diesel, and cheaper for high-mileage blocks. The purchase premium is offset by " +
			"energy and 20-30 % lower maintenance; a mid-life battery replacement is the largest uncertainty.",
		summary: "Near parity over 12 years at 60-70k km a year; cheaper on high-mileage blocks. Battery replacement is the main risk.",
	},
	{
		title: "Grid capacity and utility upgrades",
		slug:  "grid",
		brief: "Find out what grid connection two 160-bus depots need and how long utilities take to deliver it.",
		reasoning: "Grid connection lead times are often the real critical path, longer than buying buses. " +
			"I need typical connection capacities for depots this size and utility lead times for medium-voltage upgrades.",
		searches: []swarmSearch{
			{
				query: "bus depot grid connection lead time medium voltage substation utility",
				intro: "Checking utility lead times, which are often the bottleneck.",
				results: []swarmResult{
					{"Grid connections for fleet electrification", "https://www.gridplanning.example/fleet-connections",
						"New medium-voltage connections above 5 MW took 2-4 years from application to energisation in the surveyed utilities."},
				},
			},
			{
				query: "bus depot battery storage peak shaving grid connection size",
				intro: "Checking whether on-site storage can shrink the connection.",
				results: []swarmResult{
					{"Stationary storage at bus depots", "https://www.gridplanning.example/depot-storage",
						"A 2-4 MWh battery at the depot cut the required connection by 20-30 % in the modelled cases, at the price of a larger site footprint."},
				},
			},
		},
		findings: "The grid is the critical path. Each depot will need a dedicated medium-voltage connection in the 8-12 MW range, " +
			"and utilities quote 2-4 years for connections above 5 MW. Applications should go in this year for a 2030 target.",
		summary: "Each depot needs 8-12 MW; utilities take 2-4 years. Apply now.",
	},
	{
		title: "Procurement lead times and manufacturer capacity",
		slug:  "procurement",
		brief: "Find out how long it takes to order and receive battery buses and whether manufacturers can deliver 320 by 2030.",
		reasoning: "Tendering plus delivery can take two years. Buying 320 buses at once is unusual; most cities phase replacement " +
			"with the natural retirement of diesel buses. I should check delivery times and typical phasing.",
		searches: []swarmSearch{
			{
				query: "electric bus order delivery time tender europe 2024 manufacturers backlog",
				intro: "Looking at order-to-delivery times.",
				results: []swarmResult{
					{"European bus market report", "https://www.busmarket.example/report-2024",
						"Delivery times for battery buses settled at 12-18 months after contract signature; tenders typically take 6-9 months."},
				},
			},
			{
				query: "phased bus fleet replacement plan diesel retirement schedule electric",
				intro: "Now looking at how other operators phased their orders.",
				results: []swarmResult{
					{"Phasing fleet replacement", "https://www.transit-research.example/guides/phasing",
						"Operators aligned battery bus orders with the 12-14 year retirement cycle of diesel buses, typically replacing 15-20 % of the fleet a year."},
				},
			},
		},
		findings: "Buying is feasible but must be phased. Tendering takes 6-9 months and delivery 12-18 months, so buses ordered in 2027 " +
			"arrive in 2028-2029. Replacing about 60-70 buses a year from 2026 lines up with normal diesel retirement.",
		summary: "Tender 6-9 months, delivery 12-18 months; replace about 60-70 buses a year from 2026.",
	},
	{
		title: "Funding and grants",
		slug:  "funding",
		brief: "List the public funding that could cover the price gap and the grid works.",
		reasoning: "National clean-bus programmes and regional development funds usually cover part of the price difference and " +
			"sometimes the charging infrastructure. I need typical coverage rates and the application calendar.",
		searches: []swarmSearch{
			{
				query: "clean bus funding programme grant percentage charging infrastructure municipalities",
				intro: "Searching for clean-bus funding programmes.",
				results: []swarmResult{
					{"Clean bus funding overview", "https://www.publicfunding.example/clean-bus",
						"Programmes typically cover 40-80 % of the price difference to diesel and up to 40 % of charging infrastructure."},
				},
			},
			{
				query: "green bonds municipal transit electrification financing leasing batteries",
				intro: "Looking beyond grants: financing and battery leasing.",
				results: []swarmResult{
					{"Financing fleet electrification", "https://www.publicfunding.example/financing",
						"Several cities lease the batteries separately from the buses, turning the price premium into an operating cost tied to performance guarantees."},
				},
			},
		},
		findings: "Funding is available but competitive: programmes typically cover 40-80 % of the price difference to diesel and up to 40 % " +
			"of charging infrastructure. Calls open yearly, so the procurement phases should be aligned with the funding calendar.",
		summary: "Grants cover 40-80 % of the price gap and up to 40 % of chargers; align phases with yearly calls.",
	},
	{
		title: "Cities that already switched",
		slug:  "case-studies",
		brief: "Collect case studies of cities with large battery bus fleets, especially with cold winters.",
		reasoning: "Case studies are the best reality check. I want cities with more than 200 battery buses and real winters, " +
			"and what went wrong for them, not just press releases.",
		searches: []swarmSearch{
			{
				query: "city full battery electric bus fleet cold climate lessons learned",
				intro: "Collecting case studies from cities with real winters.",
				results: []swarmResult{
					{"Lessons from the first all-electric bus fleets", "https://www.urbantransport.example/all-electric-lessons",
						"Cities that completed the switch reported that timetable changes and depot rebuilds took longer than the vehicle purchases."},
					{"A northern city's six-year switch", "https://www.citycases.example/northern-switch",
						"The operator replaced 280 diesel buses over six years, adding 12 % to the fleet to cover winter range."},
				},
			},
			{
				query: "electric bus fleet problems first winter breakdowns operator interview",
				intro: "Looking for what went wrong, not just the press releases.",
				results: []swarmResult{
					{"What the first winter taught us", "https://www.citycases.example/first-winter",
						"Most first-winter problems were charger faults and heater settings, fixed within a season; availability then matched the diesel fleet."},
				},
			},
		},
		findings: "Comparable cities made it, over about six years. A northern operator replaced 280 diesel buses over six years and added " +
			"12 % to the fleet for winter range. Across case studies, depot rebuilds and timetable changes took longer than buying buses.",
		summary: "Similar cities needed about six years and 12 % more buses; depot work, not buses, was the slow part.",
	},
	{
		title: "Battery lifecycle and recycling",
		slug:  "battery-lifecycle",
		brief: "Find out how long bus batteries last, what replacement costs, and what happens to them afterwards.",
		reasoning: "Battery life drives the mid-life replacement assumption in the cost model. I need warranty periods, observed " +
			"degradation and second-life or recycling options.",
		searches: []swarmSearch{
			{
				query: "electric bus battery degradation years warranty replacement cost second life",
				intro: "Looking for observed battery degradation and warranty terms.",
				results: []swarmResult{
					{"Battery ageing in city bus service", "https://www.batterylab.example/bus-ageing",
						"Observed capacity loss was 2-3 % a year for LFP packs with depot charging; most warranties run 6-8 years."},
				},
			},
			{
				query: "second life bus batteries stationary storage recycling rates",
				intro: "Checking what happens to the packs after the bus.",
				results: []swarmResult{
					{"Second life for traction batteries", "https://www.batterylab.example/second-life",
						"Packs retired at 70-80 % capacity are reused for stationary storage for another 5-10 years before recycling."},
				},
			},
		},
		findings: "Batteries are likely to need one replacement in a 12-year bus life. LFP packs lose about 2-3 % capacity a year and " +
			"warranties run 6-8 years. Used packs have a second-life market in stationary storage, which can offset part of the replacement cost.",
		summary: "Plan one battery replacement per bus; LFP loses 2-3 % a year, warranties 6-8 years, second-life storage offsets some cost.",
	},
}

// Refinements appended to a topic's queries once they have all been used,
// so that a researcher with many rounds keeps searching for something new.
var swarmRefinements = []string{"2024 update", "case study", "operator report", "pdf", "lessons learned", "survey", "independent review"}

// What the researcher that fails tries to fetch, and how it fails.
const (
	swarmFailIntro   = "The most detailed figures are in the agency's open-data portal; fetching the raw dataset."
	swarmFailURL     = "https://data.transport-agency.example/api/v2/datasets/bus-fleet-energy.csv"
	swarmFailResult  = "error: GET https://data.transport-agency.example/api/v2/datasets/bus-fleet-energy.csv returned HTTP 503 Service Unavailable (3 attempts over 40 s)"
	swarmFailMessage = "could not retrieve the primary dataset: data.transport-agency.example returned HTTP 503 three times; giving up on this track"
	swarmFailCode    = "source_unavailable"
)

// What the researcher that suspends wants approved.
const (
	swarmSuspendIntro = "The only complete source is a paid market report (62 pages, EUR 480). " +
		"I won't buy it without approval, so I'm asking before going further."
	swarmSuspendReport  = "European Battery Bus Market Outlook 2025"
	swarmSuspendPrice   = 480
	swarmSuspendMessage = "Approve buying the \"European Battery Bus Market Outlook 2025\" report for EUR 480 to complete the research track?"
)

const swarmReportIntro = "Short answer: yes, it is realistic, but only with a phased plan that starts this year, and the grid, not the buses, sets the pace.\n\n"

const swarmReportOutro = "\n\nRecommended next steps: apply for both depot grid connections now, tender the first 60-70 buses in 2026, " +
	"and size the fleet for winter range."

// What the supervisor says to a follow-up question.
const (
	swarmFollowUpReasoning = "A follow-up on the same thread. Everything I have is already here: the plan, " +
		"each track's findings and the report. I'll answer from those and say so."
	swarmFollowUpReply = "You asked: \"%s\"\n\nI'm agview's demo agent, with no model behind me, so I answer " +
		"follow-ups from the research already in this thread. In short: yes, a full battery fleet by 2030 is " +
		"realistic if the depot grid connections are applied for now, the fleet is sized for winter range and " +
		"the first buses are tendered in 2026. Ask another question any time."
)
