-- ehrsql_eicu: derived by build.py from glee4810/EHRSQL (dataset/ehrsql/eicu), MIT-LCP/eicu.mit.edu (_eicutables/*.md); see README.md

CREATE TABLE "patient" ( -- Contains patient demographics and admission and discharge details for hospital and ICU stays.
  "uniquepid" VARCHAR(10) NOT NULL, -- ID for a unique patient.
  "patienthealthsystemstayid" INTEGER NOT NULL, -- surrogate key for the patient health system stay (hospital stay)
  "patientunitstayid" INTEGER NOT NULL, -- surrogate key for ICU Stay
  "gender" VARCHAR(25) NOT NULL, -- gender of the patient: Male, Female, Unknown, Other, NULL
  "age" VARCHAR(10) NOT NULL, -- age of the patient in full years. If the patient is over 89 years old specify "> 89" e.g.: 79, 36, 52, "> 89", etc.
  "ethnicity" VARCHAR(50), -- picklist ethnicity of the patient: Asian, Caucasian, African American, Native American, Hispanic, Other/Unknown, NULL
  "hospitalid" INTEGER NOT NULL, -- surrogate key for the hospital associated with the patient unit stay
  "wardid" INTEGER NOT NULL, -- surrogate key for the ward associated with the patient unit stay
  "admissionheight" NUMERIC(10,2), -- admission height of the patient in cm e.g.: 160.0000, 182.9000, 175.3000, etc.
  "admissionweight" NUMERIC(10,2), -- admission weight of the patient in kilograms e.g.: 69.7000, 70.9000, 173.0000, etc.
  "dischargeweight" NUMERIC(10,2), -- patient weight at time of unit discharge in kilograms e.g.: 69.7000, 70.9000, 173.0000, etc.
  "hospitaladmittime" TIMESTAMP NOT NULL,
  "hospitaladmitsource" VARCHAR(30) NOT NULL, -- location from where the patient was admitted to the hospital e.g.: Direct Admit, Floor, Chest Pain Center. etc.
  "unitadmittime" TIMESTAMP NOT NULL,
  "unitdischargetime" TIMESTAMP,
  "hospitaldischargetime" TIMESTAMP,
  "hospitaldischargestatus" VARCHAR(10), -- specifies patient’s condition upon leaving the hospital: Alive, Expired, or NULL
  PRIMARY KEY ("patientunitstayid")
);

CREATE TABLE "diagnosis" ( -- Patient diagnosis recorded in the active diagnosis table. Sequence does indicate relative severity. diagnosisPriority is not required.
  "diagnosisid" INTEGER NOT NULL, -- surrogate key for the diagnosis
  "patientunitstayid" INTEGER NOT NULL, -- a globally unique identifier (GUID) used as a foreign key link to the patient table
  "diagnosisname" VARCHAR(200) NOT NULL,
  "diagnosistime" TIMESTAMP NOT NULL,
  "icd9code" VARCHAR(100), -- ICD-9 code for the diagnosis e.g.: 518.81, 537.9, 491.20, etc.
  PRIMARY KEY ("diagnosisid"),
  FOREIGN KEY ("patientunitstayid") REFERENCES "patient" ("patientunitstayid")
);

CREATE TABLE "treatment" ( -- The treatment table allows users to document, in a structured format, specific active treatments for the patient.
  "treatmentid" INTEGER NOT NULL, -- surrogate key for the treatment
  "patientunitstayid" INTEGER NOT NULL, -- foreign key link to the patient table
  "treatmentname" VARCHAR(200) NOT NULL,
  "treatmenttime" TIMESTAMP NOT NULL,
  PRIMARY KEY ("treatmentid"),
  FOREIGN KEY ("patientunitstayid") REFERENCES "patient" ("patientunitstayid")
);

CREATE TABLE "lab" ( -- Laboratory tests that have have been mapped to a standard set of measurements. Unmapped measurements are recorded in the customLab table.
  "labid" INTEGER NOT NULL, -- surrogate ID for the labs data
  "patientunitstayid" INTEGER NOT NULL, -- foreign key link to the patient table
  "labname" VARCHAR(256) NOT NULL, -- the picklist name of the lab e.g.: CPK, troponin - I, RBC, HCO3, Total CO2, etc. This is hospital specific.
  "labresult" NUMERIC(11,4) NOT NULL, -- the numeric value of the lab e.g.: 7.3230,, 58.0000, 24.8000
  "labresulttime" TIMESTAMP NOT NULL,
  PRIMARY KEY ("labid"),
  FOREIGN KEY ("patientunitstayid") REFERENCES "patient" ("patientunitstayid")
);

CREATE TABLE "medication" ( -- The medications table reflects the active medication orders for patients. These are orders but do not necessarily reflect administration to the patient. Titration of continuous infusion medications can be obtained in the infusionDrug table.
  "medicationid" INTEGER NOT NULL, -- surrogate key for drugs
  "patientunitstayid" INTEGER NOT NULL, -- foreign key link to the patient table
  "drugname" VARCHAR(220) NOT NULL, -- name of selected drug e.g.: SODIUM CHLORIDE 0.9%, ONDANSETRON HCL, MORPHINE SULFATE, etc.
  "dosage" VARCHAR(60) NOT NULL, -- the dosage of the drug e.g.: 500 ml, 1 mcg/kg/min, 2.4 units/hour, etc.
  "routeadmin" VARCHAR(120) NOT NULL, -- the picklist route of administration for the drug e.g.: IV (intravenous), IV - continuous infusion (intravenous), PO (oral), etc.
  "drugstarttime" TIMESTAMP,
  "drugstoptime" TIMESTAMP,
  PRIMARY KEY ("medicationid"),
  FOREIGN KEY ("patientunitstayid") REFERENCES "patient" ("patientunitstayid")
);

CREATE TABLE "cost" (
  "costid" INTEGER NOT NULL,
  "uniquepid" VARCHAR(10) NOT NULL,
  "patienthealthsystemstayid" INTEGER NOT NULL,
  "eventtype" VARCHAR(20) NOT NULL,
  "eventid" INTEGER NOT NULL,
  "chargetime" TIMESTAMP NOT NULL,
  "cost" DOUBLE PRECISION NOT NULL,
  PRIMARY KEY ("costid"),
  FOREIGN KEY ("patienthealthsystemstayid") REFERENCES "patient" ("patienthealthsystemstayid")
);

CREATE TABLE "allergy" ( -- The allergy tables contains details of patient allergies. The data is entered in the patient note forms.
  "allergyid" INTEGER NOT NULL, -- surrogate key for the allergy
  "patientunitstayid" INTEGER NOT NULL, -- a globally unique identifier (GUID) used as a foreign key link to the patient table
  "drugname" VARCHAR(255), -- name of the selected admission drug e.g.: POTASSIUM CHLORIDE/D5NS METAXALONE PRAVACHOL
  "allergyname" VARCHAR(255) NOT NULL, -- allergy picklist name e.g.: penicillins pollen shellfish
  "allergytime" TIMESTAMP NOT NULL,
  PRIMARY KEY ("allergyid"),
  FOREIGN KEY ("patientunitstayid") REFERENCES "patient" ("patientunitstayid")
);

CREATE TABLE "intakeoutput" ( -- Intake and output recorded for patients. Entered from the nursing flowsheet (either manually or interfaced into the hospital system).
  "intakeoutputid" INTEGER NOT NULL, -- surrogate key for the intake output data
  "patientunitstayid" INTEGER NOT NULL, -- foreign key link to the patient table
  "cellpath" VARCHAR(500) NOT NULL, -- the root path of info from the label in I and O e.g.: flowsheet
  "celllabel" VARCHAR(255) NOT NULL, -- The predefined row label text from I and O e.g.: Enteral flush/meds panda, D5 0.45 NS w/20 mEq KCL 1000 ml, Continuous infusion meds, etc.
  "cellvaluenumeric" NUMERIC(12,4) NOT NULL, -- the value of the current I and O row e.g.: 100.0000, 60.9000, 10.0000, etc.
  "intakeoutputtime" TIMESTAMP NOT NULL,
  PRIMARY KEY ("intakeoutputid"),
  FOREIGN KEY ("patientunitstayid") REFERENCES "patient" ("patientunitstayid")
);

CREATE TABLE "microlab" ( -- Microbiology data.
  "microlabid" INTEGER NOT NULL, -- surrogate key for the micro lab
  "patientunitstayid" INTEGER NOT NULL, -- foreign key link to the patient table
  "culturesite" VARCHAR(255) NOT NULL, -- picklist site name from where the culture was taken e.g.: Wound, Drainage Fluid, Sputum, Expectorated, Nasopharynx, etc.
  "organism" VARCHAR(255) NOT NULL, -- picklist organism found e.g.: Staphylococcus aureus, Pseudomonas aeruginosa, no growth, etc.
  "culturetakentime" TIMESTAMP NOT NULL,
  PRIMARY KEY ("microlabid"),
  FOREIGN KEY ("patientunitstayid") REFERENCES "patient" ("patientunitstayid")
);

CREATE TABLE "vitalperiodic" ( -- "Periodic" data refers to data which is consistently interfaced from bedside vital signs monitors into eCareManager. Data are generally interfaced as 1 minute averages, and archived into the vitalPeriodic table as 5 minute median values.
  "vitalperiodicid" BIGINT NOT NULL, -- surrogate key for periodic value
  "patientunitstayid" INTEGER NOT NULL, -- foreign key link to the patient table
  "temperature" NUMERIC(11,4), -- patient's temperature value in celsius e.g.: 36.1000, 37.8000, 35.5000, etc.
  "sao2" INTEGER, -- patient's spO2 value e.g.: 99, 94, 98, etc.
  "heartrate" INTEGER, -- patient's heart rate value e.g.: 102, 104, 70, etc.
  "respiration" INTEGER, -- patient's respiration value e.g.: 25, 20, 17, etc.
  "systemicsystolic" INTEGER, -- patient's systolic value e.g.: 120, 103, 106, etc.
  "systemicdiastolic" INTEGER, -- patient's diastolic value e.g.: 73, 65, 63, etc.
  "systemicmean" INTEGER, -- patient's mean pressure e.g.: 89, 75, 78, etc.
  "observationtime" TIMESTAMP NOT NULL,
  PRIMARY KEY ("vitalperiodicid"),
  FOREIGN KEY ("patientunitstayid") REFERENCES "patient" ("patientunitstayid")
);

